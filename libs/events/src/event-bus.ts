import { createRedis, Logger, Redis } from '@svc/platform';
import { BullMqJobQueue, JobRetention } from './bullmq-queue';
import { InProcessJobQueue } from './in-process-queue';
import type { JobQueue } from './job-queue';
import { DEFAULT_PUBLISH_TIMEOUT_MS, EventPublisher, QueueEventPublisher } from './publisher';
import { DEFAULT_QUEUE_PREFIX, QueueName, QueuePayloadMap, QUEUES } from './queues';

export interface EventBusConfig {
  /** BullMQ on this Redis when set; the in-process queue otherwise. */
  REDIS_URL?: string;
}

export interface EventBusOptions {
  /** Redis key prefix (deployment namespace), default `svc`. No `:`. */
  prefix?: string;
  /** Connection name shown by `CLIENT LIST`, e.g. the service name. */
  name?: string;
  retention?: JobRetention;
  publishTimeoutMs?: number;
}

/**
 * The queues of one process. Every `queue(name)` call for the same name returns the same
 * JobQueue, so in the embedded mode producers and workers in one process meet on one object.
 * Owned by the process's runtime: close it on shutdown, after the apps stopped.
 */
export interface EventBus {
  readonly kind: 'bullmq' | 'in-process';
  readonly prefix: string;
  /** The shared `queue`-role connection (health checks); null in process. */
  readonly redis: Redis | null;
  /** Publishes onto the `events` queue. */
  readonly publisher: EventPublisher;
  queue<N extends QueueName>(name: N): JobQueue<QueuePayloadMap[N]>;
  queue<T>(name: string): JobQueue<T>;
  /** Closes every queue (waiting for in-flight jobs), then the connection. */
  close(): Promise<void>;
}

/** Builds the bus: one shared `queue`-role Redis connection with REDIS_URL, else in process. */
export function createEventBus(config: EventBusConfig, logger: Logger, options: EventBusOptions = {}): EventBus {
  const prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX;
  if (prefix.length === 0 || prefix.includes(':')) throw new TypeError('The queue prefix must be non-empty without ":"');
  const log = logger.child({ component: 'event-bus' });
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL, 'queue', options.name ?? 'svc') : null;
  const queues = new Map<string, JobQueue<unknown>>();
  let closing: Promise<void> | null = null;

  const create = (name: string): JobQueue<unknown> =>
    redis
      ? new BullMqJobQueue<unknown>(name, { connection: redis, prefix, logger: log, retention: options.retention })
      : new InProcessJobQueue<unknown>(name, log);

  function queue<T>(name: string): JobQueue<T> {
    if (closing) throw new Error('The event bus is closed');
    let existing = queues.get(name);
    if (!existing) {
      existing = create(name);
      queues.set(name, existing);
    }
    return existing as JobQueue<T>;
  }

  const publisher = new QueueEventPublisher(
    queue<QueuePayloadMap['events']>(QUEUES.events),
    log,
    options.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS,
  );

  async function shutdown(): Promise<void> {
    await Promise.allSettled([...queues.values()].map((q) => q.close()));
    if (!redis) return;
    if (redis.status !== 'ready') {
      redis.disconnect();
      return;
    }
    const ended = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1_000);
      timer.unref();
      redis.once('end', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    await redis.quit().catch(() => redis.disconnect());
    await ended;
  }

  return {
    kind: redis ? 'bullmq' : 'in-process',
    prefix,
    redis,
    publisher,
    queue,
    close: () => (closing ??= shutdown()),
  };
}
