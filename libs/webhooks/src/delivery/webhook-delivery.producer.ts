import type { WebhookEntity } from '@svc/domain';
import { GatewayEvent, JobQueue, WebhookDeliveryJob, webhookDeliveryJobOptions } from '@svc/events';

/**
 * Enqueues the delivery of one event to one webhook: job id `<event id>.<webhook id>`, so a fan-out
 * that runs twice (a retried or recovered `events` job) adds it once; six attempts with the
 * 1, 2, 4, 8, 16 x `retryBaseMs` backoff.
 */
export function enqueueWebhookDelivery(
  queue: JobQueue<WebhookDeliveryJob>,
  event: GatewayEvent,
  webhook: Pick<WebhookEntity, '_id'>,
  retryBaseMs: number,
): Promise<string> {
  return queue.add(event.type, { event, webhookId: webhook._id, attempt: 1 }, webhookDeliveryJobOptions(event.id, webhook._id, retryBaseMs));
}
