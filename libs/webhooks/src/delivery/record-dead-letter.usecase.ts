import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, OrgId, Repositories, WebhookDeliveryEntity } from '@svc/domain';
import { QueueJob, WebhookDeadLetterJob } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';

/** The attempt that ended a delivery, as written on its record. */
export interface FinalAttempt {
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  retry_count: number;
}

/**
 * A delivery failed for good (its last attempt, a 410, a refused destination): its record becomes
 * a dead letter, kept 30 days and retryable by `POST .../deliveries/{delivery_id}/retry`, and the
 * webhook's consecutive-failure count goes up by one; the 50th failed delivery in a row disables
 * it (DECISIONS.md "Webhook states"). Failures are counted per delivery, not per attempt, and
 * once: only the write that turns the record into a dead letter counts.
 *
 * `DeliverWebhookUseCase` calls `end` itself before its job fails, so a dispatcher that dies
 * right after BullMQ marked the job failed leaves nothing half done. `execute` (the
 * `webhook-dead-letter` consumer, fed by the queue's failure hook) is the backstop for a last
 * attempt that could not write its outcome (the store was down): it finds the record already a
 * dead letter in every other case and does nothing.
 */
@Injectable()
export class RecordDeadLetterUseCase {
  constructor(
    @Inject(REPOSITORIES) private readonly repos: Repositories,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(job: QueueJob<WebhookDeadLetterJob>): Promise<void> {
    const { data: delivery, error, attemptsMade } = job.data;
    const orgId = asOrgId(delivery.event.orgid);
    const deliveries = this.repos.webhookDeliveries;
    const record = delivery.retryOfDeliveryId
      ? await deliveries.findById(orgId, delivery.retryOfDeliveryId)
      : await deliveries.findByEvent(orgId, delivery.webhookId, delivery.event.id);
    if (!record || record.dead_letter) return;
    await this.end(orgId, record, null, { event_id: delivery.event.id, attempts: attemptsMade, error });
  }

  /**
   * Makes the record a dead letter (with the final attempt's outcome when given) and counts the
   * failure on its webhook, unless the record already was one (a re-run of the same end).
   */
  async end(orgId: OrgId, record: WebhookDeliveryEntity, attempt: FinalAttempt | null, context: Record<string, unknown> = {}): Promise<void> {
    const deliveries = this.repos.webhookDeliveries;
    const dead = attempt ? await deliveries.recordDeadLetter(orgId, record._id, attempt) : await deliveries.markDeadLetter(orgId, record._id);
    if (!dead) return;
    const log = { org_id: orgId, webhook_id: record.webhook_id, delivery_id: record._id, event_id: record.event_id, ...context };
    this.logger.warn({ ...log, error: dead.error }, 'webhook delivery moved to the dead-letter queue');
    const webhook = await this.repos.webhooks.findById(orgId, record.webhook_id);
    if (webhook?.status !== 'active') return;
    const counted = await this.repos.webhooks.recordDeliveryFailure(orgId, webhook._id);
    if (counted?.status === 'disabled') {
      this.logger.warn({ ...log, consecutive_failures: counted.consecutive_failures }, 'webhook disabled after consecutive failed deliveries');
    }
  }
}
