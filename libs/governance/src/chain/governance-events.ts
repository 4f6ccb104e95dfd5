import { createEvent, EVENT_SOURCES, EventPublisher, GatewayEvent } from '@svc/events';
import type { Logger } from '@svc/platform';
import { minuteOf, periodKey } from '../counters/periods';
import type { PendingEvent } from './context';

/**
 * Publishes the chain's events without ever holding a request up: `publish` is called and not
 * awaited, and nothing it does can throw into the chain. Two kinds of event repeat for every
 * refused request while the condition lasts, so they are thinned out per replica: a rate-limit
 * `guardrail.triggered` once per organization and minute window, and a `budget.exceeded` once per
 * organization, budget and minute. A node's 100 % `budget_hierarchy_alert` (sent when it refuses)
 * goes out once per node and period. Every other event is published as it happens.
 */
export class GovernanceEvents {
  private readonly sent = new Map<string, number>();

  constructor(
    private readonly publisher: EventPublisher,
    private readonly logger: Logger,
    private readonly source: string = EVENT_SOURCES.gateway,
  ) {}

  publish(orgId: string, events: readonly PendingEvent[] | undefined, now: Date): void {
    if (!events) return;
    for (const event of events) {
      const key = this.onceKey(orgId, event, now);
      if (key !== null) {
        if (this.sent.has(key)) continue;
        this.remember(key, now.getTime());
      }
      try {
        const envelope = createEvent(event.type, orgId, event.data as never, this.source, { time: now }) as GatewayEvent;
        void this.publisher.publish(envelope).catch((err: unknown) => this.logger.warn({ err, event_type: event.type }, 'event publish failed'));
      } catch (err) {
        this.logger.warn({ err, event_type: event.type }, 'could not build a governance event');
      }
    }
  }

  private onceKey(orgId: string, event: PendingEvent, now: Date): string | null {
    if (event.type === 'guardrail.triggered' && event.data.guardrail === 'rate_limit') return `rl:${orgId}:${minuteOf(now.getTime())}`;
    if (event.type === 'budget.exceeded') return `be:${orgId}:${event.data.blocked_by}:${minuteOf(now.getTime())}`;
    if (event.type === 'budget_hierarchy_alert' && event.data.threshold_pct === 100) {
      return `bh:${event.data.node_id}:${periodKey(event.data.reset_period, now)}`;
    }
    return null;
  }

  private remember(key: string, nowMs: number): void {
    this.sent.set(key, nowMs);
    if (this.sent.size > 10_000) {
      // Keys carry their window; anything older than a day can go.
      for (const [old, at] of this.sent) if (nowMs - at > 86_400_000) this.sent.delete(old);
      if (this.sent.size > 10_000) this.sent.delete(this.sent.keys().next().value as string);
    }
  }
}
