import type { EncryptedValue } from '../crypto/secret-cipher';
import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { WEBHOOKS, WebhookEntity } from './webhook.entity';

export interface NewWebhook {
  url: string;
  events: string[];
  secret: EncryptedValue;
  description?: string | null;
}

/** Consecutive failed deliveries after which a webhook is disabled (DECISIONS.md "Webhook states"). */
export const WEBHOOK_DISABLE_AFTER_FAILURES = 50;

export class WebhookRepository extends TenantRepository<WebhookEntity> {
  constructor(store: DocumentStore) {
    super(store, WEBHOOKS);
  }

  /** Throws DuplicateKeyError (index `org_url_unique`) when the org has a webhook for the URL. */
  create(orgId: OrgId, input: NewWebhook, now = new Date()): Promise<WebhookEntity> {
    return this.insertIn(orgId, {
      _id: newId('webhook'),
      url: input.url,
      events: [...new Set(input.events)],
      status: 'active',
      secret: input.secret,
      description: input.description ?? null,
      consecutive_failures: 0,
      disabled_reason: null,
      disabled_at: null,
      last_delivery_at: null,
      created_at: now,
      updated_at: now,
    });
  }

  /** Active webhooks of the org subscribed to an event type. */
  listActiveForEvent(orgId: OrgId, eventType: string): Promise<WebhookEntity[]> {
    return this.findIn(orgId, { status: 'active', events: eventType }, { sort: { created_at: 1 } });
  }

  async recordDeliverySuccess(orgId: OrgId, id: string, at = new Date()): Promise<void> {
    await this.updateOneIn(orgId, { _id: id }, { $set: { consecutive_failures: 0, last_delivery_at: at } });
  }

  /** Counts a failed delivery; disables the webhook once `disableAfter` failures follow each other. */
  async recordDeliveryFailure(
    orgId: OrgId,
    id: string,
    at = new Date(),
    disableAfter = WEBHOOK_DISABLE_AFTER_FAILURES,
  ): Promise<WebhookEntity | null> {
    const updated = await this.findOneAndUpdateIn(
      orgId,
      { _id: id },
      { $inc: { consecutive_failures: 1 }, $set: { last_delivery_at: at } },
    );
    if (!updated || updated.status !== 'active' || updated.consecutive_failures < disableAfter) return updated;
    return (await this.disable(orgId, id, `${updated.consecutive_failures} consecutive failed deliveries`, at)) ?? updated;
  }

  /** Disables an active webhook (too many failures, or a 410 from the receiver). */
  disable(orgId: OrgId, id: string, reason: string, at = new Date()): Promise<WebhookEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, status: 'active' },
      { $set: { status: 'disabled', disabled_reason: reason, disabled_at: at, updated_at: at } },
    );
  }

  /**
   * Re-enables a disabled webhook (PUT/PATCH with `status: active`), clearing its failure count.
   * Null when it is not disabled (already active, or gone): `status: active` sent again with the
   * rest of the object must not reset the count, or a failing receiver would never be disabled.
   */
  enable(orgId: OrgId, id: string, at = new Date()): Promise<WebhookEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, status: 'disabled' },
      { $set: { status: 'active', consecutive_failures: 0, disabled_reason: null, disabled_at: null, updated_at: at } },
    );
  }
}
