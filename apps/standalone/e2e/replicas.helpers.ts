import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { GatewayAdminModule } from '@svc/admin';
import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, PlanTier, Repositories } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { BudgetAlertsModule, OrgApiModule } from '@svc/org';
import { createRedis, LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { GatewayProxyModule, unservedAdminRoute } from '@svc/proxy';
import type { ServiceDefinition } from '@svc/runtime';
import { bootService, Receiver, TestService, testRedisUrl } from '@svc/testing';
import { WebhookDispatcherModule } from '@svc/webhooks';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
export type Json = Record<string, any>;

export const PROVIDER_KEY = 'sk-mock-provider-key';

/** The services as their apps compose them (apps/gateway, apps/gateway-admin, apps/org-api, apps/webhook-dispatcher). */
@Module({ imports: [LivenessModule, GatewayProxyModule] })
class ProxyModule {}
@Module({ imports: [LivenessModule, GatewayAdminModule] })
class AdminModule {}
@Module({ imports: [LivenessModule, OrgApiModule] })
class OrgModule {}
@Module({ imports: [LivenessModule, WebhookDispatcherModule, BudgetAlertsModule] })
class DispatcherModule {}

const GATEWAY: ServiceDefinition = {
  name: 'gateway',
  version: SERVICE_VERSION,
  surfaces: [{ label: 'gateway', module: ProxyModule, port: 'GATEWAY_PORT', surface: 'gateway', rawBodyPrefix: '/v1/', validation: false }],
};
const ADMIN: ServiceDefinition = {
  name: 'gateway-admin',
  version: SERVICE_VERSION,
  surfaces: [{ label: 'gateway-admin', module: AdminModule, port: 'GATEWAY_ADMIN_PORT', surface: 'gateway', notFound: unservedAdminRoute }],
};
const ORG_API: ServiceDefinition = { name: 'org-api', version: SERVICE_VERSION, surfaces: [{ label: 'org-api', module: OrgModule, port: 'ORG_API_PORT', surface: 'org' }] };
const DISPATCHER: ServiceDefinition = {
  name: 'webhook-dispatcher',
  version: SERVICE_VERSION,
  surfaces: [{ label: 'webhook-dispatcher', module: DispatcherModule, port: 'WEBHOOK_DISPATCHER_PORT', surface: 'gateway' }],
};

/** What a gateway replica logs when Redis missed the deadline of a count (failover-counter-store.ts). */
const FELL_BACK_TO_MEMORY = 'Redis unreachable: governance counters fall back to memory (degraded)';

export interface Reply {
  status: number;
  headers: Headers;
  body: Json;
}

/**
 * A deployment as Kubernetes runs it: two gateway replicas, the gateway admin, the organization API
 * and two webhook dispatcher replicas, each its own service with its own Redis clients, caches,
 * breakers and workers, on one Redis database and one document store (the first gateway's, handed
 * to the others as replicas share MongoDB; the embedded store admits one opener per DATA_DIR).
 */
export class Deployment {
  private constructor(
    readonly gateways: [TestService, TestService],
    readonly admin: TestService,
    readonly orgApi: TestService,
    readonly dispatchers: TestService[],
    readonly mock: MockProvider,
    readonly receiver: Receiver,
    private readonly redisUrl: string,
    /** The messages the services logged (warnings and errors). */
    private readonly logged: string[],
  ) {}

  /** `db`: a Redis database of the spec file's own (the `events` queue is shared by every service on it). */
  static async boot(db: number, env: Record<string, string> = {}): Promise<Deployment> {
    const redisUrl = testRedisUrl(db);
    await flush(redisUrl);
    const mock = await startMockProvider({ port: 0 });
    const receiver = await Receiver.start();
    const shared = {
      REDIS_URL: redisUrl,
      // Replicas share their secrets (generated ones would differ per DATA_DIR).
      MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      JWT_SECRET: randomBytes(48).toString('base64url'),
      OPENAI_BASE_URL: `${mock.url}/v1`,
      ANTHROPIC_BASE_URL: mock.url,
      WEBHOOK_ALLOW_HTTP: 'true',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      ANOMALY_CHECK_INTERVAL_MS: '0',
      LOG_LEVEL: 'warn',
      ...env,
    };
    const logged: string[] = [];
    const logDestination = {
      write(chunk: string): void {
        for (const line of chunk.split('\n')) if (line.trim()) logged.push(String((JSON.parse(line) as Json).msg));
      },
    };
    const first = await bootService(GATEWAY, shared, { logDestination });
    const replica = (definition: ServiceDefinition) => bootService(definition, shared, { documentStore: first.runtime.store, logDestination });
    const second = await replica(GATEWAY);
    const admin = await replica(ADMIN);
    const orgApi = await replica(ORG_API);
    const dispatchers = [await replica(DISPATCHER), await replica(DISPATCHER)];
    return new Deployment([first, second], admin, orgApi, dispatchers, mock, receiver, redisUrl, logged);
  }

  /**
   * Runs `attempt` (which should use an organization of its own) until one ran while both replicas
   * counted in Redis from start to end, and gives its result; null from `attempt` asks for another
   * (a minute that turned). A replica whose admit Redis does not answer within 50 ms (a loaded
   * machine) counts in memory until its next probe, as documented, and the replicas' counts then
   * part: what these tests compare is the counting they share, so such an attempt is run again.
   */
  async countedTogether<T>(attempt: () => Promise<T | null>, attempts = 5): Promise<T> {
    for (let i = 0; i < attempts; i++) {
      await within(5_000, 'both replicas counting in Redis', async () => {
        const health = await Promise.all(this.gateways.map(async (gateway) => (await fetch(`${gateway.urls.gateway}/v1/health`)).json() as Promise<Json>));
        return health.every((body) => body.degraded === false);
      });
      const fallbacks = this.fallbacks();
      const result = await attempt();
      if (result !== null && this.fallbacks() === fallbacks) return result;
    }
    throw new Error(`no attempt out of ${attempts} ran with both replicas counting in Redis (a minute turned, or Redis missed a deadline: ${this.fallbacks()} fallbacks)`);
  }

  /** How often a replica has fallen back to counting in memory so far. */
  fallbacks(): number {
    return this.logged.filter((msg) => msg === FELL_BACK_TO_MEMORY).length;
  }

  get repos(): Repositories {
    return this.gateways[0].runtime.repositories;
  }

  gatewayUrl(replica: 0 | 1): string {
    return this.gateways[replica].urls.gateway;
  }

  /** A new organization (enterprise unless told) with a key holding every gateway and admin scope. */
  async tenant(name: string, plan: PlanTier = 'enterprise'): Promise<{ orgId: string; key: string; keyId: string }> {
    const org = await this.repos.organizations.create({ name: `${name}-${Date.now()}`, plan });
    const { plaintext, id } = await this.newKey(org._id, ['gateway:write', 'gateway:read', 'admin:read', 'admin:write']);
    return { orgId: org._id, key: plaintext, keyId: id };
  }

  async newKey(orgId: string, scopes: string[]): Promise<{ plaintext: string; id: string }> {
    const plaintext = generateApiKey();
    const key = await this.repos.apiKeys.create(asOrgId(orgId), {
      name: `key-${randomBytes(4).toString('hex')}`,
      key_hash: hashApiKey(plaintext),
      key_prefix: keyDisplayPrefix(plaintext),
      last_four: keyLastFour(plaintext),
      scopes,
    });
    return { plaintext, id: key._id };
  }

  async call(base: string, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'x-svc-api-key': key, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Json };
  }

  admin$(method: string, path: string, key: string, body?: unknown): Promise<Reply> {
    return this.call(this.admin.urls['gateway-admin'], method, path, key, body);
  }

  org$(method: string, path: string, key: string, body?: unknown): Promise<Reply> {
    return this.call(this.orgApi.urls['org-api'], method, path, key, body);
  }

  /** A chat completion through one replica; `providerKey: null` sends none (the organization's stored key is used). */
  chat(replica: 0 | 1, key: string, options: { model?: string; content?: string; headers?: Record<string, string>; providerKey?: string | null } = {}): Promise<Reply> {
    const body = { model: options.model ?? 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: options.content ?? 'hello' }] };
    const providerKey = options.providerKey === undefined ? PROVIDER_KEY : options.providerKey;
    return this.call(this.gatewayUrl(replica), 'POST', '/v1/chat/completions', key, body, { ...(providerKey ? { 'x-provider-key': providerKey } : {}), ...options.headers });
  }

  async stop(): Promise<void> {
    // The first gateway opened the store: it closes last.
    for (const service of [...this.dispatchers, this.orgApi, this.admin, this.gateways[1], this.gateways[0]]) await service.stop();
    await this.mock.close();
    await this.receiver.close();
    await flush(this.redisUrl);
  }
}

/** Polls `check` until it is true; the milliseconds it took, or a failure naming `what` after `timeoutMs`. */
export async function within(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

async function flush(url: string): Promise<void> {
  const redis = createRedis(url, 'queue', 'replicas-e2e-cleanup');
  try {
    await redis.flushdb();
  } finally {
    await redis.quit();
  }
}
