import { type Logger, raceTimeout } from '@svc/platform';
import type { EventType } from './catalog';
import { GatewayEvent, isGatewayEvent } from './cloud-event';
import type { JobQueue } from './job-queue';
import { EventJob, eventJobOptions } from './queues';

/** Hands an event to the dispatcher. Never rejects: a lost event must not fail a request. */
export interface EventPublisher {
  /**
   * Resolves true once the event is on the queue; false when it was refused (invalid) or the
   * queue failed or did not answer in time (logged). Callers that must not lose the event (the
   * anomaly detector) act on false; the others ignore it.
   */
  publish(event: GatewayEvent): Promise<boolean>;
}

/** Default bound on how long `publish` may wait for the queue (e.g. Redis unreachable). */
export const DEFAULT_PUBLISH_TIMEOUT_MS = 2_000;

/**
 * Publishes onto the `events` queue, one job per event (job id = event id, so a republished
 * event is not delivered twice). Failures and timeouts are logged, not thrown.
 */
export class QueueEventPublisher implements EventPublisher {
  constructor(
    private readonly queue: JobQueue<EventJob>,
    private readonly logger: Logger,
    private readonly timeoutMs: number = DEFAULT_PUBLISH_TIMEOUT_MS,
  ) {}

  async publish(event: GatewayEvent): Promise<boolean> {
    if (!isGatewayEvent(event)) {
      this.logger.error({ event_type: (event as { type?: unknown })?.type }, 'refusing to publish an invalid event');
      return false;
    }
    const timedOut = () => {
      throw new Error(`publish timed out after ${this.timeoutMs} ms`);
    };
    try {
      await raceTimeout(this.queue.add(event.type, { event }, eventJobOptions(event)), this.timeoutMs, timedOut, { unref: true });
      return true;
    } catch (err) {
      this.logger.warn(
        { err, event_id: event.id, event_type: event.type, org_id: event.orgid },
        'event publish failed or timed out; the event may be lost',
      );
      return false;
    }
  }
}

/** Keeps published events in memory, for tests of the code that emits them. */
export class RecordingPublisher implements EventPublisher {
  readonly events: GatewayEvent[] = [];
  private waiters: { type: EventType; resolve: (event: GatewayEvent) => void }[] = [];

  async publish(event: GatewayEvent): Promise<boolean> {
    this.events.push(event);
    const matched = this.waiters.filter((waiter) => waiter.type === event.type);
    this.waiters = this.waiters.filter((waiter) => waiter.type !== event.type);
    for (const waiter of matched) waiter.resolve(event);
    return true;
  }

  ofType<K extends EventType>(type: K): GatewayEvent<K>[] {
    return this.events.filter((event): event is GatewayEvent<K> => event.type === type);
  }

  last<K extends EventType>(type: K): GatewayEvent<K> | undefined {
    return this.ofType(type).at(-1);
  }

  clear(): void {
    this.events.length = 0;
  }

  /** The first recorded event of `type`, or the next one published within `timeoutMs`. */
  waitFor<K extends EventType>(type: K, timeoutMs = 2_000): Promise<GatewayEvent<K>> {
    const existing = this.ofType(type)[0];
    if (existing) return Promise.resolve(existing);
    return new Promise<GatewayEvent<K>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== entry);
        reject(new Error(`no ${type} event published within ${timeoutMs} ms`));
      }, timeoutMs);
      const entry = {
        type,
        resolve: (event: GatewayEvent) => {
          clearTimeout(timer);
          resolve(event as GatewayEvent<K>);
        },
      };
      this.waiters.push(entry);
    });
  }
}
