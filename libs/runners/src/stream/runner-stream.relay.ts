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
  private readonly subscribed: Promise<void>;

  constructor(
    private readonly hub: RunnerStreamHub,
    private readonly publisher: Redis,
    private readonly logger: Logger,
    private readonly channel = RUNNER_STREAM_CHANNEL,
  ) {
    const subscriber = publisher.duplicate({ enableOfflineQueue: true, connectionName: 'svc:runner-stream' });
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, message: string) => this.receive(message));
    this.subscriber = subscriber;
    // SUBSCRIBE goes out once the new connection is ready: the hot-path client's 1 s command timeout,
    // which the duplicate inherits, would otherwise run while it connects (a busy start, a distant
    // Redis) and report a failure for a subscription that then goes through.
    const connected = new Promise<void>((resolve) => (subscriber.status === 'ready' ? resolve() : subscriber.once('ready', () => resolve())));
    this.subscribed = connected
      .then(() => subscriber.subscribe(channel))
      .then(
        () => undefined,
        (err: unknown) => logger.warn({ err }, 'runner stream relay could not subscribe; streams see this replica only'),
      );
    hub.forwardTo((event) => this.forward(event));
  }

  /** Resolves once the subscription is in place (tests; the service does not wait). */
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
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
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
