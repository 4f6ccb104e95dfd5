import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, Repositories } from '@svc/domain';
import { EVENT_BUS, EventBus, EventJob, isGatewayEvent, QueueJob, QUEUES } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { chatWants, enqueueChatNotification } from '../chat/chat-notification.producer';
import { enqueueWebhookDelivery } from '../delivery/webhook-delivery.producer';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';
import { EVENT_DEDUP, EventDedup } from './event-dedup';

export interface FanOutResult {
  /** Delivery jobs enqueued (one per subscribed active webhook). */
  webhooks: number;
  chat: boolean;
  /** Dropped by the dedup window. */
  deduplicated: boolean;
}

/**
 * One published event (`events` job): every active webhook of its organization subscribed to its
 * type gets a delivery job, and the team chat a readable summary when it is configured and wants
 * the type; the dedup window drops all of it for a repeat of the same type within 60 s.
 */
@Injectable()
export class FanOutEventUseCase {
  constructor(
    @Inject(REPOSITORIES) private readonly repos: Repositories,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(EVENT_DEDUP) private readonly dedup: EventDedup,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(job: QueueJob<EventJob>): Promise<FanOutResult> {
    const { event } = job.data;
    if (!isGatewayEvent(event)) {
      this.logger.error({ job_id: job.id }, 'events job without a valid CloudEvent; dropped');
      return { webhooks: 0, chat: false, deduplicated: false };
    }
    const orgId = asOrgId(event.orgid);
    const [webhooks, integration] = await Promise.all([
      this.repos.webhooks.listActiveForEvent(orgId, event.type),
      this.repos.chatIntegrations.get(orgId),
    ]);
    const chat = chatWants(integration, event);
    if (webhooks.length === 0 && !chat) return { webhooks: 0, chat: false, deduplicated: false };
    if (!(await this.dedup.isFirst(event))) {
      this.logger.info({ org_id: orgId, event_id: event.id, event_type: event.type }, 'event dropped by the dedup window');
      return { webhooks: 0, chat: false, deduplicated: true };
    }
    const deliveries = this.bus.queue(QUEUES.webhookDelivery);
    for (const webhook of webhooks) await enqueueWebhookDelivery(deliveries, event, webhook, this.settings.retryBaseMs);
    if (chat) await enqueueChatNotification(this.bus.queue(QUEUES.chatNotification), event, this.settings.retryBaseMs);
    this.logger.debug({ org_id: orgId, event_id: event.id, webhooks: webhooks.length, chat }, 'event fanned out');
    return { webhooks: webhooks.length, chat, deduplicated: false };
  }
}
