import { newId } from '../shared/ids';
import { Page, PageRequest, TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import { DocumentStore, DuplicateKeyError } from '../store/types';
import { DELIVERY_RETENTION_MS, DeliveryStatus, WEBHOOK_DELIVERIES, WebhookDeliveryEntity } from './webhook-delivery.entity';

export interface NewWebhookDelivery {
  webhook_id: string;
  event_id: string;
  event_type: string;
  url: string;
  payload: string;
}

export interface DeliveryAttempt {
  status: Exclude<DeliveryStatus, 'dead_letter'>;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  retry_count: number;
  next_attempt_at?: Date | null;
  /** The attempt's number within its schedule, and its job (kept for the retry sweep). */
  attempt?: number;
  job_id?: string;
}

/** Where the previous page of overdue deliveries ended (its last record). */
export interface OverdueCursor {
  next_attempt_at: Date;
  _id: string;
}

export class WebhookDeliveryRepository extends TenantRepository<WebhookDeliveryEntity> {
  constructor(store: DocumentStore) {
    super(store, WEBHOOK_DELIVERIES);
  }

  /** Throws DuplicateKeyError (index `org_webhook_event_unique`) when the event already has a record for the webhook. */
  create(orgId: OrgId, input: NewWebhookDelivery, now = new Date()): Promise<WebhookDeliveryEntity> {
    return this.insertIn(orgId, newRecord(input, now));
  }

  /**
   * The record of (webhook, event), created on first use by one upsert: dispatcher runs that
   * overlap (a job taken over after a stalled lock, a fan-out run twice) share one record, never
   * two. An existing record is returned as it is (its stored body is what every attempt re-sends).
   */
  async findOrCreate(orgId: OrgId, input: NewWebhookDelivery, now = new Date()): Promise<WebhookDeliveryEntity> {
    const { _id, ...fields } = newRecord(input, now);
    const upsert = () =>
      this.findOneAndUpdateIn(
        orgId,
        { webhook_id: input.webhook_id, event_id: input.event_id },
        { $setOnInsert: { _id, ...fields } },
        { upsert: true, returnDocument: 'after' },
      );
    try {
      return (await upsert()) as WebhookDeliveryEntity;
    } catch (error) {
      // Two first upserts raced on the unique index: the loser now finds the winner's record.
      if (error instanceof DuplicateKeyError) return (await upsert()) as WebhookDeliveryEntity;
      throw error;
    }
  }

  /** Records the outcome of one attempt. */
  recordAttempt(orgId: OrgId, id: string, attempt: DeliveryAttempt, at = new Date()): Promise<WebhookDeliveryEntity | null> {
    return this.findOneAndUpdateIn(orgId, { _id: id }, { $set: attemptFields(attempt, at) });
  }

  /**
   * Records the attempt that ended a delivery (its last, or one not worth retrying) and makes it
   * a dead letter, kept 30 days from now, in one write. Null when it already was a dead letter
   * (a re-run of the same end) or does not exist, so the caller counts the failure once.
   */
  recordDeadLetter(orgId: OrgId, id: string, attempt: Omit<DeliveryAttempt, 'status' | 'next_attempt_at'>, at = new Date()): Promise<WebhookDeliveryEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, dead_letter: false },
      { $set: { ...attemptFields({ ...attempt, status: 'failed' }, at), ...deadLetterFields(at) } },
    );
  }

  /** Makes a delivery a dead letter, kept 30 days from now; null when it already is one (or does not exist). */
  markDeadLetter(orgId: OrgId, id: string, at = new Date()): Promise<WebhookDeliveryEntity | null> {
    return this.findOneAndUpdateIn(orgId, { _id: id, dead_letter: false }, { $set: { ...deadLetterFields(at), updated_at: at } });
  }

  /**
   * Takes a dead letter back for a manual retry, to be sent by the job `jobId`: the record keeps that
   * job and a new schedule with no attempt made yet (`attempt: 0`), so the retry sweep can put the job
   * back if the queue loses it before it runs (`listOverdueAcrossOrgs` with `pending`). Null when it
   * is not a dead letter (of that webhook).
   */
  requeueDeadLetter(orgId: OrgId, webhookId: string, id: string, jobId: string, at = new Date()): Promise<WebhookDeliveryEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, webhook_id: webhookId, dead_letter: true },
      {
        $set: {
          status: 'pending',
          dead_letter: false,
          attempt: 0,
          job_id: jobId,
          next_attempt_at: at,
          updated_at: at,
          expires_at: new Date(at.getTime() + DELIVERY_RETENTION_MS),
        },
      },
    );
  }

  listByWebhook(orgId: OrgId, webhookId: string, page: PageRequest = {}): Promise<Page<WebhookDeliveryEntity>> {
    return this.list(orgId, { ...page, filter: { webhook_id: webhookId } });
  }

  listDeadLetters(orgId: OrgId, webhookId?: string, page: PageRequest = {}): Promise<Page<WebhookDeliveryEntity>> {
    return this.list(orgId, { ...page, filter: { dead_letter: true, ...(webhookId ? { webhook_id: webhookId } : {}) } });
  }

  deleteByWebhook(orgId: OrgId, webhookId: string): Promise<number> {
    return this.deleteManyIn(orgId, { webhook_id: webhookId });
  }

  /**
   * Cross-tenant by design, for the retry sweep: deliveries of `status` (`failed`: waiting for a
   * retry; `pending`: a first attempt or a manual retry not made yet) whose next attempt was due
   * before `before` (index `status_1_next_attempt_at_1`), oldest first, after `cursor`.
   */
  listOverdueAcrossOrgs(
    before: Date,
    limit = 200,
    cursor: OverdueCursor | null = null,
    status: Extract<DeliveryStatus, 'failed' | 'pending'> = 'failed',
  ): Promise<WebhookDeliveryEntity[]> {
    const due = { status, next_attempt_at: { $lt: before } };
    const filter = cursor
      ? { ...due, $or: [{ next_attempt_at: { $gt: cursor.next_attempt_at, $lt: before } }, { next_attempt_at: cursor.next_attempt_at, _id: { $gt: cursor._id } }] }
      : due;
    return this.acrossTenants.find(filter, { sort: { next_attempt_at: 1, _id: 1 }, limit });
  }

  /** The delivery record of one event to one webhook (index `org_webhook_event_unique`). */
  findByEvent(orgId: OrgId, webhookId: string, eventId: string): Promise<WebhookDeliveryEntity | null> {
    return this.findOneIn(orgId, { webhook_id: webhookId, event_id: eventId });
  }
}

function newRecord(input: NewWebhookDelivery, now: Date): Omit<WebhookDeliveryEntity, 'org_id'> {
  return {
    _id: newId('webhookDelivery'),
    webhook_id: input.webhook_id,
    event_id: input.event_id,
    event_type: input.event_type,
    url: input.url,
    payload: input.payload,
    status: 'pending',
    status_code: null,
    latency_ms: null,
    retry_count: 0,
    error: null,
    dead_letter: false,
    created_at: now,
    updated_at: now,
    last_attempt_at: null,
    next_attempt_at: now,
    delivered_at: null,
    expires_at: new Date(now.getTime() + DELIVERY_RETENTION_MS),
  };
}

function attemptFields(attempt: DeliveryAttempt, at: Date): Partial<WebhookDeliveryEntity> {
  return {
    status: attempt.status,
    status_code: attempt.status_code,
    latency_ms: attempt.latency_ms,
    error: attempt.error,
    retry_count: attempt.retry_count,
    next_attempt_at: attempt.next_attempt_at ?? null,
    ...(attempt.attempt === undefined ? {} : { attempt: attempt.attempt }),
    ...(attempt.job_id === undefined ? {} : { job_id: attempt.job_id }),
    last_attempt_at: at,
    updated_at: at,
    ...(attempt.status === 'succeeded' ? { delivered_at: at } : {}),
  };
}

function deadLetterFields(at: Date): Partial<WebhookDeliveryEntity> {
  return { status: 'dead_letter', dead_letter: true, next_attempt_at: null, expires_at: new Date(at.getTime() + DELIVERY_RETENTION_MS) };
}
