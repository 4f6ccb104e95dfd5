import { randomUUID } from 'node:crypto';
import type { Logger, Redis } from '@svc/platform';
import { RunnerStreamEvent, RunnerStreamHub } from './runner-stream.hub';

/** Redis channel of runner stream events (all runners; a replica delivers only to its own followers). */
export const RUNNER_STREAM_CHANNEL = 'svc:runner-stream';

interface RelayMessage {
  origin: string;
  event: RunnerStreamEvent;
}

/**
 * With REDIS_URL, several replicas serve one runner: the replica that runs a command or a
 * transition publishes the event on a Redis channel, and every other replica delivers it to the
 * stream clients it holds. Its own messages are recognised by origin and skipped (they were
 * delivered locally already). Best effort: a lost message is a missed stream event, never a lost
 * audit event (those are in the store).
 */
export class RunnerStreamRelay {
  private readonly origin = randomUUID();
  private subscriber: Redis | null;
  /** Settles once Redis first acknowledged the subscription; never rejects. */
  private readonly subscribed: Promise<void>;

  constructor(
    private readonly hub: RunnerStreamHub,
    private readonly publisher: Redis,
    private readonly logger: Logger,
    private readonly channel = RUNNER_STREAM_CHANNEL,
  ) {
    // Subscribes on every 'ready', as the invalidation bus does: Redis keeps a connection's
    // subscriptions only while it lasts, and ioredis' own resubscription covers only a subscription
    // that once succeeded. A SUBSCRIBE lost with its connection (Redis went away as the service
    // started, and refused the reconnections) is flushed by the hot-path client's one retry and
    // never sent again; the next 'ready' subscribes afresh. Sent only once the connection is ready,
    // so the 1 s command timeout the duplicate inherits does not run while it connects (a busy
    // start, a distant Redis); no offline queue, so nothing waits in one.
    const subscriber = publisher.duplicate({ enableOfflineQueue: false, autoResubscribe: false, connectionName: 'svc:runner-stream' });
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, message: string) => this.receive(message));
    this.subscriber = subscriber;
    this.subscribed = new Promise<void>((acknowledged) => {
      subscriber.on('ready', () => {
        subscriber.subscribe(channel).then(
          () => acknowledged(),
          (err: unknown) => logger.warn({ err }, 'runner stream relay could not subscribe yet; retried when Redis reconnects (until then streams see this replica only)'),
        );
      });
    });
    hub.forwardTo((event) => this.forward(event));
  }

  /** Resolves once Redis acknowledged the subscription (tests; the service does not wait). */
  ready(): Promise<void> {
    return this.subscribed;
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    this.hub.forwardTo(null);
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (!subscriber) return;
    if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
    else subscriber.disconnect();
  }

  private forward(event: RunnerStreamEvent): void {
    const message: RelayMessage = { origin: this.origin, event };
    this.publisher.publish(this.channel, JSON.stringify(message)).catch((err: unknown) => {
      this.logger.warn({ err, runner_id: event.runnerId }, 'runner stream event not relayed to other replicas');
    });
  }

  private receive(text: string): void {
    try {
      const message = JSON.parse(text) as RelayMessage;
      if (message.origin === this.origin || !message.event?.runnerId) return;
      this.hub.deliver(message.event);
    } catch {
      this.logger.warn('ignored a malformed runner stream message');
    }
  }
}
