import { DynamicModule, Global, Module } from '@nestjs/common';
import {
  BootstrapResult,
  bootstrapFirstOrganization,
  createRepositories,
  DocumentStore,
  openDocumentStore,
  Repositories,
  resealWebhookUrls,
  SecretCipher,
  sealProviderTargetHeaders,
} from '@svc/domain';
import { createEventBus, EventBus, EventsModule } from '@svc/events';
import {
  APP_CONFIG,
  AppConfig,
  Closeable,
  createLogger,
  createRedis,
  InvalidationBus,
  LogDestination,
  LOGGER,
  Logger,
  Redis,
  REDIS,
  redisStatus,
  waitForRedis,
} from '@svc/platform';
import { stopTelemetry } from '@svc/telemetry';
import { InstanceSecrets, resolveInstanceSecrets } from './instance-secrets';

/** Injection tokens of the shared resources (APP_CONFIG, LOGGER and REDIS come from @svc/platform). */
export const INSTANCE_SECRETS = Symbol('INSTANCE_SECRETS');
export const DOCUMENT_STORE = Symbol('DOCUMENT_STORE');
export const REPOSITORIES = Symbol('REPOSITORIES');
export const SECRET_CIPHER = Symbol('SECRET_CIPHER');
export const INVALIDATION_BUS = Symbol('INVALIDATION_BUS');

/**
 * The resources one process shares between its HTTP apps and workers. `npm start` builds one
 * and hands it to both the gateway surface and the org API, so the embedded stores are shared.
 */
export interface Runtime {
  readonly name: string;
  readonly config: AppConfig;
  readonly logger: Logger;
  /** Hot-path client; null in the embedded mode (no REDIS_URL). */
  readonly redis: Redis | null;
  readonly secrets: InstanceSecrets;
  readonly store: DocumentStore;
  readonly repositories: Repositories;
  readonly events: EventBus;
  readonly cipher: SecretCipher;
  readonly invalidation: InvalidationBus;
  /** Set when this process ran the first-start bootstrap. */
  readonly bootstrap: BootstrapResult | null;
  /** Closed in reverse order of registration on shutdown. */
  readonly resources: Closeable[];
  storesInUse(): Record<string, string>;
}

export interface RuntimeOptions {
  /** Create the first organization and Owner when there are no users (services that own users). */
  bootstrap?: boolean;
  /** Where the service's log lines go (default stdout); tests read them from a stream. */
  logDestination?: LogDestination;
  /**
   * An open document store to use instead of opening one, left open on close (its opener closes
   * it): tests run several replicas in one process on one store, as replicas share MongoDB (the
   * embedded store admits one opener per DATA_DIR).
   */
  documentStore?: DocumentStore;
}

/**
 * Longest a service waits at start for its Redis connection. A replica that listened before Redis
 * was ready counted its first requests in memory and told its readiness probe (`/v1/health`) it was
 * degraded; one whose Redis is down starts anyway, degraded, and returns to Redis when it answers.
 */
export const REDIS_STARTUP_WAIT_MS = 5_000;

export async function createRuntime(name: string, config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = createLogger(config, name, options.logDestination);
  const secrets = resolveInstanceSecrets(config, logger);
  // Registered first, so closed last: the spans of the shutdown itself are exported too.
  const resources: Closeable[] = [{ close: () => stopTelemetry() }];
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL, 'hot-path', name) : null;
  if (redis) resources.push({ close: () => redis.quit().catch(() => redis.disconnect()) });
  // Connects while the document store opens.
  const redisReady = redis ? waitForRedis(redis, REDIS_STARTUP_WAIT_MS).then(() => null, (err: unknown) => err) : null;
  const invalidation = new InvalidationBus(redis, logger);
  resources.push(invalidation);
  const store = options.documentStore ?? (await openDocumentStore(config, logger));
  if (!options.documentStore) resources.push(store);
  await store.ready();
  const redisError = await redisReady;
  if (redisError) logger.warn({ err: redisError }, 'Redis is not reachable: starting degraded (governance counters in memory) until it answers');
  // A replica that reports ready hears the others' revokes and rotations; until then only the caches' TTL bounds them.
  else if (redis && !(await invalidation.listening(REDIS_STARTUP_WAIT_MS))) {
    logger.warn('the invalidation subscription is not acknowledged yet: cached keys and policies expire by TTL until it is');
  }
  const events = createEventBus(config, logger, { name });
  resources.push(events);
  const repositories = createRepositories(store);
  const cipher = new SecretCipher(secrets.masterKeys);
  // Webhook URLs stored in clear, or sealed under a previous master key, are sealed under the current one
  // (docs/webhooks-outbound.md "Receiver URLs at rest"). Readers accept both shapes, so a failed pass only waits for the next start.
  await resealWebhookUrls(repositories.webhooks, cipher, logger).catch((err: unknown) => logger.warn({ err }, 'could not seal the stored webhook URLs; retried at the next start'));
  // Credential headers of provider targets stored before they were refused are sealed (docs/admin-api-providers.md
  // "Provider targets and discovery"); readers accept both shapes, so a failed pass only waits for the next start.
  await sealProviderTargetHeaders(repositories.providerTargets, cipher, logger).catch((err: unknown) => logger.warn({ err }, 'could not seal the stored provider target headers; retried at the next start'));
  const bootstrap = options.bootstrap ? await bootstrapFirstOrganization(repositories, config) : null;
  return {
    name,
    config,
    logger,
    redis,
    secrets,
    store,
    repositories,
    events,
    cipher,
    invalidation,
    bootstrap,
    resources,
    storesInUse: () => ({
      redis: config.REDIS_URL ? `redis (${redisStatus(redis)}), BullMQ queues` : 'embedded in-process counters and queues',
      documents: config.MONGODB_URI ? `mongodb (${store.status()})` : `embedded file store in ${config.DATA_DIR}`,
    }),
  };
}

@Global()
@Module({})
export class RuntimeModule {
  /** Makes the runtime's shared resources injectable everywhere in one Nest application. */
  static forRoot(runtime: Runtime): DynamicModule {
    const providers = [
      { provide: APP_CONFIG, useValue: runtime.config },
      { provide: LOGGER, useValue: runtime.logger },
      { provide: REDIS, useValue: runtime.redis },
      { provide: INSTANCE_SECRETS, useValue: runtime.secrets },
      { provide: DOCUMENT_STORE, useValue: runtime.store },
      { provide: REPOSITORIES, useValue: runtime.repositories },
      { provide: SECRET_CIPHER, useValue: runtime.cipher },
      { provide: INVALIDATION_BUS, useValue: runtime.invalidation },
    ];
    return {
      module: RuntimeModule,
      imports: [EventsModule.forRoot(runtime.events)],
      providers,
      exports: [...providers.map((p) => p.provide), EventsModule],
    };
  }
}
