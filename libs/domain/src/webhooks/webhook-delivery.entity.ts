import { defineCollection } from '../store/types';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead_letter';

/** One event's delivery to one webhook, across its attempts (one record per event and webhook). */
export interface WebhookDeliveryEntity {
  /** `dlv_...` */
  _id: string;
  org_id: string;
  webhook_id: string;
  /** The CloudEvents id, `evt_...`. */
  event_id: string;
  event_type: string;
  /**
   * The webhook's URL with its credential parts masked (user info, credential query values, an
   * incoming webhook's path): for reading the record, never for sending (records written before
   * this masking may hold it whole until they expire).
   */
  url: string;
  /** The exact JSON body sent (signed as is; kept for dead-letter retries). */
  payload: string;
  status: DeliveryStatus;
  /** HTTP status of the last attempt; null when it got no response. */
  status_code: number | null;
  latency_ms: number | null;
  /** Retries made after the first attempt. */
  retry_count: number;
  /**
   * The number of the last attempt within its six-attempt schedule (1..6; 0 once a manual retry
   * started a new schedule, until its first attempt). Absent on records written before it was kept.
   */
  attempt?: number;
  /**
   * The `webhook-delivery` job that made the last attempt (or, on a `pending` manual retry, the job
   * queued to make it): the retry sweep adds its next attempt under this id, so it is a no-op while
   * the queue still holds the job. Absent on records written before it was kept (the sweep then
   * uses `<event id>.<webhook id>`).
   */
  job_id?: string;
  error: string | null;
  dead_letter: boolean;
  created_at: Date;
  updated_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  /** Retention: 30 days after creation, or after becoming a dead letter. */
  expires_at: Date;
}

export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;

export const WEBHOOK_DELIVERIES = defineCollection<WebhookDeliveryEntity>('webhook_deliveries', [
  {
    fields: { expires_at: 1 },
    expireAfterSeconds: 0,
    comment: 'retention: delivery history and dead letters are kept 30 days (each record carries its expiry)',
  },
  { fields: { org_id: 1, webhook_id: 1, created_at: -1 }, comment: 'delivery history of a webhook, newest first' },
  { fields: { org_id: 1, dead_letter: 1, created_at: -1 }, comment: 'dead letters of an org (optionally of one webhook)' },
  {
    fields: { org_id: 1, webhook_id: 1, event_id: 1 },
    unique: true,
    name: 'org_webhook_event_unique',
    comment: 'findByEvent / findOrCreate: the record of one event to one webhook, read on every attempt; one per pair, so overlapping runs share it',
  },
  {
    fields: { status: 1, next_attempt_at: 1 },
    comment: 'retry sweep: failed deliveries whose next attempt is overdue (their queued retry was lost), all orgs, oldest first',
  },
]);
