import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, Repositories } from '@svc/domain';
import { QueueJob, WebhookDeadLetterJob } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';

/**
 * A delivery failed for good (its last attempt, a 410, a refused destination): its record becomes
 * a dead letter, kept 30 days and retryable by `POST .../deliveries/{delivery_id}/retry`, and the
 * webhook's consecutive-failure count goes up by one; the 50th failed delivery in a row disables
 * it (DECISIONS.md "Webhook states"). Failures are counted per delivery, not per attempt.
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
    const log = { org_id: orgId, webhook_id: delivery.webhookId, event_id: delivery.event.id, attempts: attemptsMade, error };
    const deliveries = this.repos.webhookDeliveries;
    const record = delivery.retryOfDeliveryId
      ? await deliveries.findById(orgId, delivery.retryOfDeliveryId)
      : await deliveries.findByEvent(orgId, delivery.webhookId, delivery.event.id);
    // Already a dead letter: this job ran before (and counted the failure) and is being re-run.
    if (!record || record.dead_letter) return;
    await deliveries.markDeadLetter(orgId, record._id);
    this.logger.warn({ ...log, delivery_id: record._id }, 'webhook delivery moved to the dead-letter queue');
    const webhook = await this.repos.webhooks.findById(orgId, delivery.webhookId);
    if (webhook?.status !== 'active') return;
    const counted = await this.repos.webhooks.recordDeliveryFailure(orgId, webhook._id);
    if (counted?.status === 'disabled') {
      this.logger.warn({ ...log, consecutive_failures: counted.consecutive_failures }, 'webhook disabled after consecutive failed deliveries');
    }
  }
}
