import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, openWebhookUrl, OrgId, Repositories, SecretCipher, WebhookDeliveryEntity, WebhookEntity } from '@svc/domain';
import { backoffDelay, PermanentJobError, QueueJob, WEBHOOK_MAX_ATTEMPTS, WebhookDeliveryJob } from '@svc/events';
import { LOGGER, Logger, scrubEmbeddedUrls } from '@svc/platform';
import { REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';
import { OUTBOUND_POSTER, OutboundPoster, PostOutcome } from '../infra/outbound-poster';
import { deliveryHeaders } from '../signing/webhook-signature';
import { RecordDeadLetterUseCase } from './record-dead-letter.usecase';

/** HTTP status that disables a webhook at once (DECISIONS.md "Webhook states"). */
const GONE = 410;

/**
 * One attempt of one delivery (`webhook-delivery` job): signs the stored body, POSTs it, and
 * writes the outcome on the delivery record (status code, latency, retry count, error, times).
 * A 2xx succeeds and resets the webhook's failure count; a 410 disables the webhook and ends the
 * delivery (PermanentJobError, no retries); a refused destination ends it too; anything else
 * throws so the queue retries after 1, 2, 4, 8, 16 x the base. An attempt that ends the delivery
 * (the last one, or one not worth retrying) makes the record a dead letter and counts the failure
 * itself, before the job fails, so nothing depends on a hook that runs after (docs/webhooks.md).
 */
@Injectable()
export class DeliverWebhookUseCase {
  constructor(
    @Inject(REPOSITORIES) private readonly repos: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(OUTBOUND_POSTER) private readonly poster: OutboundPoster,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
    private readonly deadLetters: RecordDeadLetterUseCase,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(job: QueueJob<WebhookDeliveryJob>): Promise<void> {
    const { event, webhookId } = job.data;
    const orgId = asOrgId(event.orgid);
    // The attempt's number in its schedule: a job put back by the retry sweep starts past 1.
    const attempt = (job.data.attempt ?? 1) + job.attempt - 1;
    const log = { org_id: orgId, webhook_id: webhookId, event_id: event.id, event_type: event.type, attempt };
    const webhook = await this.repos.webhooks.findById(orgId, webhookId);
    if (!webhook) {
      this.logger.info(log, 'webhook deleted; delivery dropped');
      return;
    }
    let url: string | null = null;
    try {
      url = openWebhookUrl(this.cipher, orgId, webhook); // sealed, or in clear in a document stored before URLs were sealed
    } catch (err) {
      this.logger.error({ ...log, err }, 'webhook URL cannot be decrypted');
    }
    const record = await this.deliveryRecord(orgId, webhook, job.data, url);
    if (record.dead_letter) {
      // This delivery already ended (a run of its last attempt that died before the job was marked
      // failed, or a fan-out run again): only a manual retry, which resets the flag, sends it again.
      this.logger.info({ ...log, delivery_id: record._id }, 'delivery is already a dead letter; not sent again');
      throw new PermanentJobError(record.error ?? 'the delivery is a dead letter');
    }
    if ((attempt > 1 || job.data.retryOfDeliveryId !== undefined) && job.attempt === 1 && record.status === 'succeeded') {
      // Put back by the retry sweep after the queue had dropped the original job, which had delivered
      // it (a manual retry's job, or the sweep's, only ever starts on a delivery that did not succeed).
      this.logger.info({ ...log, delivery_id: record._id }, 'delivery already succeeded; not sent again');
      return;
    }
    const retryCount = record.last_attempt_at === null ? 0 : record.retry_count + 1;
    const end = (outcome: Pick<PostOutcome, 'statusCode' | 'latencyMs' | 'error'>) =>
      this.deadLetters.end(orgId, record, { status_code: outcome.statusCode, latency_ms: outcome.latencyMs, error: outcome.error, retry_count: retryCount }, { attempts: attempt });
    if (webhook.status !== 'active') {
      await end({ statusCode: null, latencyMs: 0, error: 'the webhook is disabled' });
      throw new PermanentJobError('the webhook is disabled');
    }

    if (url === null) {
      // The key that sealed it was rotated away without the start-up pass sealing it again: re-set the URL.
      await end({ statusCode: null, latencyMs: 0, error: 'the webhook URL cannot be decrypted' });
      throw new PermanentJobError('the webhook URL cannot be decrypted');
    }
    let secret: string;
    try {
      secret = this.cipher.decrypt(orgId, webhook.secret);
    } catch (err) {
      // A master key rotated away without re-encryption: retrying cannot help; re-set the secret.
      this.logger.error({ ...log, err }, 'webhook secret cannot be decrypted');
      await end({ statusCode: null, latencyMs: 0, error: 'the signing secret cannot be decrypted' });
      throw new PermanentJobError('the signing secret cannot be decrypted');
    }
    const outcome = await this.poster.post(url, record.payload, deliveryHeaders(event, record.payload, secret));

    if (outcome.error === null) {
      await this.record(orgId, record, retryCount, outcome, null, { attempt, job_id: job.id });
      await this.repos.webhooks.recordDeliverySuccess(orgId, webhook._id);
      this.logger.debug({ ...log, status_code: outcome.statusCode, latency_ms: outcome.latencyMs }, 'webhook delivered');
      return;
    }
    if (outcome.statusCode === GONE) {
      await this.repos.webhooks.disable(orgId, webhook._id, 'the receiver answered 410 Gone');
      this.logger.warn(log, 'webhook receiver answered 410: webhook disabled');
      await end({ ...outcome, error: `${outcome.error} (the webhook is now disabled)` });
      throw new PermanentJobError(outcome.error);
    }
    const final = outcome.blocked || attempt >= WEBHOOK_MAX_ATTEMPTS || job.attempt >= job.maxAttempts;
    this.logger.info({ ...log, status_code: outcome.statusCode, error: outcome.error, final }, 'webhook delivery attempt failed');
    if (final) {
      await end(outcome);
      throw outcome.blocked ? new PermanentJobError(outcome.error) : new Error(outcome.error);
    }
    const nextAttemptAt = new Date(Date.now() + backoffDelay({ type: 'exponential', delayMs: this.settings.retryBaseMs }, attempt));
    await this.record(orgId, record, retryCount, outcome, nextAttemptAt, { attempt, job_id: job.id });
    throw new Error(outcome.error);
  }

  /**
   * The record this attempt writes to: the dead letter being retried by hand, else the record of
   * (webhook, event), made by the first attempt that got here (one upsert, so runs that overlap
   * share it). The body is stored once and re-sent byte for byte on every attempt. The record keeps
   * the URL masked as in the logs (`scrubEmbeddedUrls`: user info, credential query values and an
   * incoming webhook's path): it is never read back, and the webhook holds the URL it is sent to.
   */
  private async deliveryRecord(orgId: OrgId, webhook: WebhookEntity, data: WebhookDeliveryJob, url: string | null): Promise<WebhookDeliveryEntity> {
    const deliveries = this.repos.webhookDeliveries;
    const retried = data.retryOfDeliveryId ? await deliveries.findById(orgId, data.retryOfDeliveryId) : null;
    if (retried && retried.webhook_id === webhook._id) return retried;
    return deliveries.findOrCreate(orgId, {
      webhook_id: webhook._id,
      event_id: data.event.id,
      event_type: data.event.type,
      url: url === null ? '' : scrubEmbeddedUrls(url),
      payload: JSON.stringify(data.event),
    });
  }

  private async record(
    orgId: OrgId,
    record: WebhookDeliveryEntity,
    retryCount: number,
    outcome: PostOutcome,
    next: Date | null,
    run: { attempt: number; job_id: string },
  ): Promise<void> {
    await this.repos.webhookDeliveries.recordAttempt(orgId, record._id, {
      ...run,
      status: outcome.error === null ? 'succeeded' : 'failed',
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      error: outcome.error,
      retry_count: retryCount,
      next_attempt_at: next,
    });
  }
}
