import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type Redis from 'ioredis';
import { raceTimeout } from '../async/race-timeout';

/** What a cache entry is keyed by; each in-process cache listens to its own topic. */
export type InvalidationTopic = 'api-key' | 'organization' | 'policy' | 'model-alias' | 'provider-target' | 'provider-secret';

export type InvalidationHandler = (id: string) => void;

/**
 * Tells every replica's in-process caches that a record changed, so a revoke, a rotation or a
 * policy edit takes effect everywhere at once (the caches' short TTL bounds it when Redis is down).
 * With Redis: pub/sub on one channel, through a dedicated subscriber connection. Without: in process.
 */
export class InvalidationBus {
  private readonly local = new EventEmitter();
  private subscriber: Redis | null = null;
  /** Settles true once Redis first acknowledged the subscription; never rejects. */
  private readonly subscription: Promise<boolean>;

  constructor(
    private readonly publisherClient: Redis | null,
    private readonly logger: Logger,
    private readonly channel = 'svc:invalidate',
  ) {
    this.local.setMaxListeners(0);
    if (publisherClient) {
      // Subscribes on every 'ready' (Redis keeps a connection's subscriptions only while it lasts),
      // so a replica that started while Redis was down subscribes as soon as it answers. ioredis'
      // own resubscription covers only a subscription that once succeeded, and a SUBSCRIBE parked
      // in the offline queue would time out like any other command.
      const subscriber = publisherClient.duplicate({ enableOfflineQueue: false, autoResubscribe: false, connectionName: 'svc:invalidation' });
      subscriber.on('error', () => undefined);
      subscriber.on('message', (_channel: string, message: string) => this.deliver(message));
      this.subscription = new Promise<boolean>((acknowledged) => {
        subscriber.on('ready', () => {
          subscriber.subscribe(channel).then(
            () => acknowledged(true),
            (err: unknown) => logger.warn({ err }, 'invalidation subscribe failed; retried when Redis reconnects'),
          );
        });
      });
      this.subscriber = subscriber;
    } else {
      this.subscription = Promise.resolve(true);
    }
  }

  /**
   * Whether this replica hears the others' invalidations: true once Redis acknowledged the
   * subscription (at once without Redis), false if it has not within `timeoutMs`. A message
   * published before the acknowledgement is not delivered here (pub/sub keeps nothing).
   */
  listening(timeoutMs = 5_000): Promise<boolean> {
    return raceTimeout(this.subscription, timeoutMs, () => false);
  }

  subscribe(topic: InvalidationTopic, handler: InvalidationHandler): () => void {
    this.local.on(topic, handler);
    return () => this.local.off(topic, handler);
  }

  /** Invalidates locally at once, then tells the other replicas. Never throws. */
  async publish(topic: InvalidationTopic, id: string): Promise<void> {
    this.local.emit(topic, id);
    if (!this.publisherClient) return;
    try {
      await this.publisherClient.publish(this.channel, JSON.stringify({ topic, id, origin: process.pid }));
    } catch (err) {
      this.logger.warn({ err, topic }, 'invalidation publish failed; other replicas rely on their cache TTL');
    }
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (!subscriber) return;
    if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
    else subscriber.disconnect();
  }

  private deliver(message: string): void {
    try {
      const { topic, id } = JSON.parse(message) as { topic: InvalidationTopic; id: string };
      this.local.emit(topic, id);
    } catch {
      this.logger.warn('ignored a malformed invalidation message');
    }
  }
}
