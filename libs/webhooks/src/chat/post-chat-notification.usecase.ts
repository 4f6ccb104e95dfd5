import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, Repositories, SecretCipher } from '@svc/domain';
import { ChatNotificationJob, describeEvent, PermanentJobError, QueueJob } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import { OUTBOUND_POSTER, OutboundPoster } from '../infra/outbound-poster';
import { chatWants } from './chat-notification.producer';

/**
 * Posts an event's readable summary to the organization's team chat (DECISIONS.md "Team chat"):
 * a Slack-compatible incoming webhook, body `{"text": "..."}`, with the outbound rules of webhook
 * deliveries. The outcome is kept on the integration (`last_delivery_at`, `last_error`); a failure
 * throws so the queue retries it a few times; a refused destination is not retried.
 */
@Injectable()
export class PostChatNotificationUseCase {
  constructor(
    @Inject(REPOSITORIES) private readonly repos: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(OUTBOUND_POSTER) private readonly poster: OutboundPoster,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(job: QueueJob<ChatNotificationJob>): Promise<void> {
    const { event } = job.data;
    const orgId = asOrgId(event.orgid);
    const integration = await this.repos.chatIntegrations.get(orgId);
    // Removed, disabled or narrowed since the event was queued.
    if (!chatWants(integration, event)) return;
    const url = this.cipher.decrypt(orgId, integration.url);
    // The path of an incoming-webhook URL is its secret, whatever the host.
    const outcome = await this.poster.post(url, JSON.stringify({ text: describeEvent(event) }), { 'Content-Type': 'application/json' }, { secretPath: true });
    await this.repos.chatIntegrations.recordDelivery(orgId, outcome.error);
    if (outcome.error === null) return;
    this.logger.info({ org_id: orgId, event_id: event.id, attempt: job.attempt, error: outcome.error }, 'team-chat post failed');
    if (outcome.blocked) throw new PermanentJobError(outcome.error);
    throw new Error(outcome.error);
  }
}
