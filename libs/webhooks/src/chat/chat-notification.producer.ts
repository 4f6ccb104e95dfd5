import type { ChatIntegrationEntity } from '@svc/domain';
import { ChatNotificationJob, GatewayEvent, JobQueue } from '@svc/events';

/** Tries of one team-chat post: the first and three retries (1, 2, 4 x the retry base). */
export const CHAT_ATTEMPTS = 4;

/** Whether the organization's integration wants this event (enabled, and the type listed or no list). */
export function chatWants(integration: ChatIntegrationEntity | null, event: GatewayEvent): integration is ChatIntegrationEntity {
  return !!integration && integration.enabled && (integration.events.length === 0 || integration.events.includes(event.type));
}

/** Enqueues the readable summary of an event for the team chat; job id = event id (once per event). */
export function enqueueChatNotification(queue: JobQueue<ChatNotificationJob>, event: GatewayEvent, retryBaseMs: number): Promise<string> {
  return queue.add(
    event.type,
    { event },
    { jobId: event.id, attempts: CHAT_ATTEMPTS, backoff: { type: 'exponential', delayMs: retryBaseMs } },
  );
}
