import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, OrgId, Repositories, SecretCipher, WebhookDeliveryEntity, WebhookEntity } from '@svc/domain';
import { backoffDelay, PermanentJobError, QueueJob, WebhookDeliveryJob } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';
import { OUTBOUND_POSTER, OutboundPoster, PostOutcome } from '../infra/outbound-poster';
import { deliveryHeaders } from '../signing/webhook-signature';

/** HTTP status that disables a webhook at once (DECISIONS.md "Webhook states"). */
const GONE = 410;

/**
 * One attempt of one delivery (`webhook-delivery` job): signs the stored body, POSTs it, and
 * writes the outcome on the delivery record (status code, latency, retry count, error, times).
 * A 2xx succeeds and resets the webhook's failure count; a 410 disables the webhook and ends the
 * delivery (PermanentJobError, no retries); a refused destination ends it too; anything else
 * throws so the queue retries after 1, 2, 4, 8, 16 x the base, then dead-letters it.
 */
@Injectable()
export class DeliverWebhookUseCase {
  constructor(
    @Inject(REPOSITORIES) private readonly repos: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(OUTBOUND_POSTER) private readonly poster: OutboundPoster,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(job: QueueJob<WebhookDeliveryJob>): Promise<void> {
    const { event, webhookId } = job.data;
    const orgId = asOrgId(event.orgid);
    const log = { org_id: orgId, webhook_id: webhookId, event_id: event.id, event_type: event.type, attempt: job.attempt };
    const webhook = await this.repos.webhooks.findById(orgId, webhookId);
    if (!webhook) {
      this.logger.info(log, 'webhook deleted; delivery dropped');
      return;
    }
    const record = await this.deliveryRecord(orgId, webhook, job.data);
    const retryCount = record.last_attempt_at === null ? 0 : record.retry_count + 1;
    if (webhook.status !== 'active') {
      await this.record(orgId, record, retryCount, { statusCode: null, latencyMs: 0, error: 'the webhook is disabled', blocked: false }, null);
      throw new PermanentJobError('the webhook is disabled');
    }

    let secret: string;
    try {
      secret = this.cipher.decrypt(orgId, webhook.secret);
    } catch (err) {
      // A master key rotated away without re-encryption: retrying cannot help; re-set the secret.
      this.logger.error({ ...log, err }, 'webhook secret cannot be decrypted');
      await this.record(orgId, record, retryCount, { statusCode: null, latencyMs: 0, error: 'the signing secret cannot be decrypted', blocked: true }, null);
      throw new PermanentJobError('the signing secret cannot be decrypted');
    }
    const outcome = await this.poster.post(webhook.url, record.payload, deliveryHeaders(event, record.payload, secret));

    if (outcome.error === null) {
      await this.record(orgId, record, retryCount, outcome, null);
      await this.repos.webhooks.recordDeliverySuccess(orgId, webhook._id);
      this.logger.debug({ ...log, status_code: outcome.statusCode, latency_ms: outcome.latencyMs }, 'webhook delivered');
      return;
    }
    if (outcome.statusCode === GONE) {
      await this.record(orgId, record, retryCount, { ...outcome, error: `${outcome.error} (the webhook is now disabled)` }, null);
      await this.repos.webhooks.disable(orgId, webhook._id, 'the receiver answered 410 Gone');
      this.logger.warn(log, 'webhook receiver answered 410: webhook disabled');
      throw new PermanentJobError(outcome.error);
    }
    const final = outcome.blocked || job.attempt >= job.maxAttempts;
    const nextAttemptAt = final ? null : new Date(Date.now() + backoffDelay({ type: 'exponential', delayMs: this.settings.retryBaseMs }, job.attempt));
    await this.record(orgId, record, retryCount, outcome, nextAttemptAt);
    this.logger.info({ ...log, status_code: outcome.statusCode, error: outcome.error, final }, 'webhook delivery attempt failed');
    if (outcome.blocked) throw new PermanentJobError(outcome.error);
    throw new Error(outcome.error);
  }

  /**
   * The record this attempt writes to: the dead letter being retried by hand, else the record of
   * (webhook, event) made by an earlier attempt (also one that crashed), else a new one. The body
   * is stored once and re-sent byte for byte on every attempt.
   */
  private async deliveryRecord(orgId: OrgId, webhook: WebhookEntity, data: WebhookDeliveryJob): Promise<WebhookDeliveryEntity> {
    const deliveries = this.repos.webhookDeliveries;
    const existing = data.retryOfDeliveryId
      ? await deliveries.findById(orgId, data.retryOfDeliveryId)
      : await deliveries.findByEvent(orgId, webhook._id, data.event.id);
    if (existing && existing.webhook_id === webhook._id) return existing;
    return deliveries.create(orgId, {
      webhook_id: webhook._id,
      event_id: data.event.id,
      event_type: data.event.type,
      url: webhook.url,
      payload: JSON.stringify(data.event),
    });
  }

  private async record(orgId: OrgId, record: WebhookDeliveryEntity, retryCount: number, outcome: PostOutcome, next: Date | null): Promise<void> {
    await this.repos.webhookDeliveries.recordAttempt(orgId, record._id, {
      status: outcome.error === null ? 'succeeded' : 'failed',
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      error: outcome.error,
      retry_count: retryCount,
      next_attempt_at: next,
    });
  }
}
