import type { GatewayEvent } from './cloud-event';
import { AddJobOptions, backoffDelay } from './job-queue';

/**
 * Every queue of the system, with its job payload. Producers and consumers import both from
 * here so they cannot drift apart.
 *
 * Names are unqualified; the deployment namespace is the Redis key prefix of the event bus
 * (`createEventBus({ prefix })`, default `svc`), so keys read `<prefix>:<queue>:...` and
 * several deployments can share one Redis by choosing different prefixes.
 */
export const QUEUES = Object.freeze({
  /** Every published event; consumed by the webhook dispatcher, which fans it out. */
  events: 'events',
  /** One job per (event, subscribed webhook): the HTTP delivery with its retries. */
  webhookDelivery: 'webhook-delivery',
  /** Deliveries that failed their last attempt; recorded for 30 days and retryable by hand. */
  webhookDeadLetter: 'webhook-dead-letter',
  /** Events to post as readable summaries to an organization's team-chat integration. */
  chatNotification: 'chat-notification',
  /** Batched usage records written off the request path. */
  usageRecords: 'usage-records',
});
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Default Redis key prefix of the event bus. */
export const DEFAULT_QUEUE_PREFIX = 'svc';

// ---------------------------------------------------------------------------------------------
// Payloads

/** `events`: job name is the event type, job id the event id (a republished event is a no-op). */
export interface EventJob {
  event: GatewayEvent;
}

/** `webhook-delivery`: one delivery of one event to one webhook. */
export interface WebhookDeliveryJob {
  event: GatewayEvent;
  webhookId: string;
  /**
   * Attempt number this job starts at: 1 for a fresh delivery. Queue-managed retries count on
   * from it, so the attempt being made is `data.attempt + job.attempt - 1`.
   */
  attempt: number;
  /** Set when a dead-lettered delivery is replayed by hand: the delivery record it retries. */
  retryOfDeliveryId?: string;
}

/** A job that failed its last attempt, as moved to a dead-letter queue. */
export interface DeadLetterJob<T> {
  /** Queue the job came from. */
  queue: string;
  jobId: string;
  name: string;
  data: T;
  /** Message of the last error. */
  error: string;
  attemptsMade: number;
  /** ISO 8601. */
  failedAt: string;
}

/** `webhook-dead-letter`. */
export type WebhookDeadLetterJob = DeadLetterJob<WebhookDeliveryJob>;

/** Job name of dead-letter jobs. */
export const DEAD_LETTER_JOB_NAME = 'dead-letter';

/** `chat-notification`: the consumer renders `describeEvent(event)` to the org's chat webhook. */
export interface ChatNotificationJob {
  event: GatewayEvent;
}

/** One usage record (DECISIONS.md "Usage record"), as it travels to the writer. */
export interface UsageRecordPayload {
  request_id: string;
  org_id: string;
  key_id: string | null;
  team_id: string | null;
  provider: string | null;
  model: string;
  endpoint: string;
  stream: boolean;
  status_code: number;
  blocked_by: string | null;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number;
  /** From the upstream's reported usage; 0 for blocked requests. */
  cost: number;
  latency_ms: number;
  upstream_latency_ms: number | null;
  governance_ms: number;
  agent: string | null;
  runner_id: string | null;
  session_id: string | null;
  /** ISO 8601. */
  created_at: string;
  /** What policy simulation needs to replay the request. */
  estimated_input_tokens?: number;
  estimated_output_tokens?: number;
  pii_findings?: Record<string, number>;
  safety_findings?: Record<string, number>;
}

/** `usage-records`: a batch of records, written together. */
export interface UsageRecordJob {
  records: UsageRecordPayload[];
}

/** Payload type of each queue. */
export interface QueuePayloadMap {
  events: EventJob;
  'webhook-delivery': WebhookDeliveryJob;
  'webhook-dead-letter': WebhookDeadLetterJob;
  'chat-notification': ChatNotificationJob;
  'usage-records': UsageRecordJob;
}

// ---------------------------------------------------------------------------------------------
// Delivery policy (SPEC.md "Webhook delivery" and "Limits")

/** A receiver that has not answered within this long counts as a failed attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** First try plus five retries after 1, 2, 4, 8 and 16 times the retry base. */
export const WEBHOOK_MAX_ATTEMPTS = 6;
/** Default retry base (`WEBHOOK_RETRY_BASE_MS`). */
export const WEBHOOK_RETRY_BASE_MS = 1_000;
/** Per organization and event type, only the first delivery within this window is sent. */
export const WEBHOOK_DEDUP_WINDOW_MS = 60_000;
/** Dead letters are kept this long. */
export const DEAD_LETTER_RETENTION_MS = 30 * 24 * 60 * 60 * 1_000;
/** A webhook is disabled after this many consecutive failed deliveries (DECISIONS.md). */
export const WEBHOOK_DISABLE_AFTER_FAILURES = 50;

/**
 * Retries for the `events` fan-out job itself: it fails only when the dispatcher cannot read its
 * store (webhooks, team chat) or enqueue the deliveries, so the schedule rides out an outage of
 * about ten minutes (a MongoDB failover, a restart) rather than seconds: ten tries, waiting
 * 2, 4, 8 ... 128 s, then 3 minutes (capped), about 10 minutes in all. After the last one the
 * event is lost for its webhooks; the dispatcher logs it at error level (docs/webhooks.md).
 */
export const EVENT_JOB_OPTIONS: Readonly<Omit<AddJobOptions, 'jobId'>> = Object.freeze({
  attempts: 10,
  backoff: Object.freeze({ type: 'exponential' as const, delayMs: 2_000, maxDelayMs: 3 * 60_000 }),
});

export function eventJobOptions(event: Pick<GatewayEvent, 'id'>): AddJobOptions {
  return { ...EVENT_JOB_OPTIONS, jobId: event.id };
}

/** `<event id>.<webhook id>`: one delivery job per event and webhook, however often it is fanned out. */
export function webhookDeliveryJobId(eventId: string, webhookId: string): string {
  return `${eventId}.${webhookId}`.replace(/:/g, '_');
}

/** Options of a delivery job: six attempts, exponential backoff from `retryBaseMs`. */
export function webhookDeliveryJobOptions(
  eventId: string,
  webhookId: string,
  retryBaseMs: number = WEBHOOK_RETRY_BASE_MS,
): AddJobOptions {
  return {
    jobId: webhookDeliveryJobId(eventId, webhookId),
    attempts: WEBHOOK_MAX_ATTEMPTS,
    backoff: { type: 'exponential', delayMs: retryBaseMs },
  };
}

/** The waits between the tries of an `events` job (nine, about ten minutes in all). */
export function eventRetrySchedule(): number[] {
  const attempts = EVENT_JOB_OPTIONS.attempts ?? 1;
  return Array.from({ length: attempts - 1 }, (_, i) => backoffDelay(EVENT_JOB_OPTIONS.backoff, i + 1));
}

/** The delays between a delivery's attempts: [1, 2, 4, 8, 16] x retryBaseMs. */
export function webhookRetrySchedule(retryBaseMs: number = WEBHOOK_RETRY_BASE_MS): number[] {
  return Array.from({ length: WEBHOOK_MAX_ATTEMPTS - 1 }, (_, i) => retryBaseMs * 2 ** i);
}
