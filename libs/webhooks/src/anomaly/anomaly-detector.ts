import { randomBytes } from 'node:crypto';
import { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { asOrgId, Repositories } from '@svc/domain';
import { costAnomalyEventType, CostAnomalyType, createEvent, EVENT_SOURCES, EventPublisher, GatewayEvent } from '@svc/events';
import type { Logger } from '@svc/platform';
import type { OnceGate } from '../infra/once-gate';
import { AnomalyFinding, evaluateAnomalies } from './anomaly-rules';
import { loadUsageSnapshot } from './load-usage-snapshot';
import { HOUR_MS } from './usage-snapshot';

export interface AnomalyDetectorOptions {
  /** `ANOMALY_CHECK_INTERVAL_MS`; 0 = never runs by itself (`check()` still works). */
  intervalMs: number;
  /** Key namespace of the fired windows (the event bus prefix). */
  namespace: string;
}

/**
 * An anomaly fires at most once per organization and rule within this long (a rolling hour from
 * when it fired, the length of the window the rules read).
 */
export const ANOMALY_FIRE_WINDOW_MS = HOUR_MS;

/**
 * Runs the four `cost_anomaly.*` rules every `intervalMs` (an unref'd timer; runs never overlap)
 * for each organization with usage in the last hour, and publishes what they find through the
 * event publisher, like any other event. An anomaly fires once per window: per organization and
 * rule, the first finding claims `<namespace>:dispatcher:anomaly:<org>:<rule>` for an hour
 * (`SET NX PX`, shared by every replica, or in memory), so an anomaly that lasts fires again at
 * most once an hour, whatever the clock says. A finding whose event could not be published
 * releases its claim, so the next check tries again rather than losing it for the hour.
 */
export class AnomalyDetector implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<GatewayEvent[]> | null = null;
  private lastRun: { at: Date; organizations: number; fired: number } | null = null;

  constructor(
    private readonly repos: Repositories,
    private readonly publisher: EventPublisher,
    private readonly gate: OnceGate,
    private readonly options: AnomalyDetectorOptions,
    private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    if (this.options.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.check(), this.options.intervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** The last completed check (for status and tests). */
  get lastCheck(): { at: Date; organizations: number; fired: number } | null {
    return this.lastRun;
  }

  /** One check at `now` (joins the one under way, if any). Never rejects; resolves with the events published. */
  check(now: Date = new Date()): Promise<GatewayEvent[]> {
    this.running ??= this.run(now)
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'anomaly check failed');
        return [];
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async run(now: Date): Promise<GatewayEvent[]> {
    const orgIds = await this.repos.usage.listOrgIdsWithUsageSince(new Date(now.getTime() - HOUR_MS));
    const published: GatewayEvent[] = [];
    for (const orgId of orgIds) {
      try {
        const snapshot = await loadUsageSnapshot(this.repos, asOrgId(orgId), now);
        for (const finding of evaluateAnomalies(snapshot)) {
          const event = await this.fire(orgId, finding, now);
          if (event) published.push(event);
        }
      } catch (err) {
        this.logger.warn({ err, org_id: orgId }, 'anomaly check of an organization failed');
      }
      // Let the process's I/O through between organizations (the embedded store computes synchronously).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.lastRun = { at: now, organizations: orgIds.length, fired: published.length };
    return published;
  }

  /** Publishes the finding unless this organization's rule fired within the last hour. */
  private async fire(orgId: string, finding: AnomalyFinding, now: Date): Promise<GatewayEvent | null> {
    const anomalyId = `anom_${randomBytes(10).toString('hex')}`;
    const key = `${this.options.namespace}:dispatcher:anomaly:${orgId}:${finding.anomaly_type}`;
    if (!(await this.gate.claim(key, anomalyId, ANOMALY_FIRE_WINDOW_MS))) return null;
    const event = anomalyEvent(orgId, anomalyId, finding, now);
    if (!(await this.publishOrRelease(event, key, anomalyId))) return null;
    this.logger.info(
      { org_id: orgId, event_id: event.id, anomaly_type: finding.anomaly_type, severity: finding.severity, multiplier: finding.multiplier },
      'cost anomaly detected',
    );
    return event;
  }

  /** Publishes; on failure frees the window it claimed, so the anomaly is not lost for the hour. */
  private async publishOrRelease(event: GatewayEvent, key: string, anomalyId: string): Promise<boolean> {
    const published = await this.publisher.publish(event).catch(() => false);
    if (published) return true;
    this.logger.warn({ org_id: event.orgid, event_id: event.id, event_type: event.type }, 'cost anomaly not published; the next check retries it');
    await this.gate.release(key, anomalyId);
    return false;
  }
}

function anomalyEvent(orgId: string, anomalyId: string, finding: AnomalyFinding, now: Date): GatewayEvent {
  const type = costAnomalyEventType<CostAnomalyType>(finding.anomaly_type);
  const data = { anomaly_id: anomalyId, ...finding, detected_at: now.toISOString() };
  return createEvent(type, orgId, data as never, EVENT_SOURCES.webhookDispatcher, { time: now }) as GatewayEvent;
}
