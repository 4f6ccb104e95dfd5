import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { asOrgId, OverdueCursor, Repositories, WebhookDeliveryEntity } from '@svc/domain';
import { AddJobOptions, EVENT_BUS, EventBus, parseGatewayEvent, QUEUES, WEBHOOK_MAX_ATTEMPTS, webhookDeliveryJobId, WebhookDeliveryJob } from '@svc/events';
import { LOGGER, Logger, PeriodicTask, raceTimeout } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';

/** The records a lost job leaves waiting: a retry (`failed`), a first attempt or a manual retry (`pending`). */
const SWEPT = ['failed', 'pending'] as const;
/** Overdue deliveries read per page. */
const PAGE_SIZE = 200;
/** Longest wait for one add: with Redis away the queue's client would wait for it to come back. */
const ADD_TIMEOUT_MS = 5_000;

/** What one sweep did (for logs and tests). */
export interface SweepResult {
  /** Overdue deliveries found. */
  overdue: number;
  /** Put back on the queue (a no-op for those whose job the queue still holds). */
  requeued: number;
}

/**
 * Puts back the retries a queue lost. A delivery waiting for its next attempt is a delayed
 * `webhook-delivery` job; when Redis loses its data (FLUSHALL, a restart without persistence; in
 * the embedded mode, a restart of the process) the job is gone and its record would stay `failed`
 * with a `next_attempt_at` in the past for ever; a manual retry's job lost before it ran would leave
 * its record `pending` for ever (no longer a dead letter, so not retried by hand either). Every
 * `WEBHOOK_SWEEP_INTERVAL_MS` this finds the `failed` and `pending` records whose next attempt is
 * more than that interval overdue and adds their job again:
 *
 * - under the job id the record's last attempt ran as (`<event id>.<webhook id>`, or the manual
 *   retry's; a `pending` manual retry keeps the id of the job queued for it), so while the queue
 *   still holds that job, waiting, delayed, active, or finished and retained (BullMQ ignores an
 *   add whose id it holds, in any state), the add is a no-op: a first attempt still queued or
 *   under way is not sent twice. Every replica sweeps; two that put back the same delivery add
 *   one job;
 * - starting at the attempt after the record's last one, with the attempts left and the waits the
 *   schedule had left (1, 2, 4, 8, 16 x `WEBHOOK_RETRY_BASE_MS`), so the last attempt still makes it
 *   a dead letter; a `pending` record has made no attempt of its schedule yet, so it starts a whole
 *   one (a manual retry's fresh six attempts). A job the queue had already finished and dropped is
 *   not sent again if its record says `succeeded` (DeliverWebhookUseCase).
 *
 * An unref'd timer; passes never overlap; a failed pass (store or Redis away) is logged and the
 * next one tries again.
 */
@Injectable()
export class DeliveryRetrySweep implements OnModuleInit, OnModuleDestroy {
  private readonly task: PeriodicTask<SweepResult>;

  constructor(
    @Inject(REPOSITORIES) private readonly repos: Repositories,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask((err) => {
      this.logger.warn({ err }, 'webhook retry sweep failed; the next one tries again');
      return { overdue: 0, requeued: 0 };
    });
  }

  onModuleInit(): void {
    this.task.every(this.settings.sweepIntervalMs, () => this.run(new Date()));
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** One pass at `now` (joins the one under way, if any). Never rejects. */
  sweep(now: Date = new Date()): Promise<SweepResult> {
    return this.task.once(() => this.run(now));
  }

  private async run(now: Date): Promise<SweepResult> {
    const before = new Date(now.getTime() - Math.max(this.settings.sweepIntervalMs, 1));
    const result: SweepResult = { overdue: 0, requeued: 0 };
    for (const status of SWEPT) {
      let cursor: OverdueCursor | null = null;
      for (;;) {
        const page = await this.repos.webhookDeliveries.listOverdueAcrossOrgs(before, PAGE_SIZE, cursor, status);
        for (const record of page) {
          result.overdue += 1;
          if (await this.requeue(record)) result.requeued += 1;
        }
        if (page.length < PAGE_SIZE) break;
        const last = page[page.length - 1];
        cursor = { next_attempt_at: last.next_attempt_at as Date, _id: last._id };
      }
    }
    if (result.overdue > 0) this.logger.info({ ...result }, 'webhook retry sweep: overdue deliveries put back on the queue');
    return result;
  }

  private async requeue(record: WebhookDeliveryEntity): Promise<boolean> {
    const orgId = asOrgId(record.org_id);
    const log = { org_id: orgId, webhook_id: record.webhook_id, delivery_id: record._id, event_id: record.event_id };
    const event = parseGatewayEvent(record.payload);
    if (!event) {
      // Nothing to send again: end it where it can be seen (and retried by hand once readable).
      await this.repos.webhookDeliveries.markDeadLetter(orgId, record._id);
      this.logger.warn(log, 'overdue delivery with an unreadable payload made a dead letter');
      return false;
    }
    // Attempts of its schedule made: none on a `pending` record (a first attempt or a manual retry).
    const made = record.status === 'pending' ? 0 : Math.min(Math.max(record.attempt ?? record.retry_count + 1, 1), WEBHOOK_MAX_ATTEMPTS - 1);
    const job: WebhookDeliveryJob = { event, webhookId: record.webhook_id, attempt: made + 1, retryOfDeliveryId: record._id };
    const jobId = record.job_id ?? webhookDeliveryJobId(event.id, record.webhook_id);
    const add = this.bus.queue(QUEUES.webhookDelivery).add(event.type, job, resumedJobOptions(jobId, made, this.settings.retryBaseMs));
    add.catch(() => undefined);
    await raceTimeout(add, ADD_TIMEOUT_MS, () => {
      throw new Error(`no answer from the queue within ${ADD_TIMEOUT_MS} ms`);
    });
    this.logger.debug({ ...log, job_id: jobId, attempt: made + 1 }, 'overdue webhook delivery put back on the queue');
    return true;
  }
}

/**
 * The rest of a schedule whose first `made` attempts were made: the attempts left, at once, then
 * the waits that were left (after attempt n the schedule waits `retryBaseMs` x 2^(n-1)).
 */
export function resumedJobOptions(jobId: string, made: number, retryBaseMs: number): AddJobOptions {
  return { jobId, attempts: WEBHOOK_MAX_ATTEMPTS - made, backoff: { type: 'exponential', delayMs: retryBaseMs * 2 ** made } };
}
