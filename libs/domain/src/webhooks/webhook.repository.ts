import type { EncryptedValue } from '../crypto/secret-cipher';
import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore, Filter } from '../store/types';
import { WEBHOOKS, WebhookEntity } from './webhook.entity';
import type { SealedWebhookUrl } from './webhook-url';

/** `url` and `url_hash` come from `sealWebhookUrl`. */
export interface NewWebhook extends SealedWebhookUrl {
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

  /**
   * Throws DuplicateKeyError (index `org_url_hash_unique`) when the org has a webhook with the same
   * `url_hash`; `findByUrl` first also finds one stored before URLs were sealed or under another key.
   */
  create(orgId: OrgId, input: NewWebhook, now = new Date()): Promise<WebhookEntity> {
    return this.insertIn(orgId, {
      _id: newId('webhook'),
      url: input.url,
      url_hash: input.url_hash,
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

  /**
   * The org's webhook for a normalized URL, other than `exceptId`: by `url_hash` (`hashes`: one per
   * configured key version, `webhookUrlHashes`) or, for a document stored before URLs were sealed,
   * by its clear `url`.
   */
  findByUrl(orgId: OrgId, url: string, hashes: string[], exceptId?: string): Promise<WebhookEntity | null> {
    const filter: Filter<WebhookEntity> = { $or: [{ url_hash: { $in: hashes } }, { url }] };
    if (exceptId) filter['_id'] = { $ne: exceptId };
    return this.findOneIn(orgId, filter, { sort: { created_at: 1, _id: 1 } });
  }

  /**
   * Stores a newly sealed URL in place of `current` (the stored value as read), only if it is still
   * there: true when it was replaced. Throws DuplicateKeyError when another webhook of the org has
   * the new hash.
   */
  async resealUrl(orgId: OrgId, id: string, current: WebhookEntity['url'], sealed: SealedWebhookUrl): Promise<boolean> {
    const unchanged = typeof current === 'string' ? { url: current } : { 'url.ciphertext': current.ciphertext };
    const result = await this.updateOneIn(orgId, { _id: id, ...unchanged }, { $set: { url: sealed.url, url_hash: sealed.url_hash } });
    return result.modified === 1;
  }

  /**
   * Webhooks of every organization whose URL is to be sealed again: stored in clear (written before
   * URLs were sealed) or sealed under a key version in `staleVersions`. By `_id`, after `afterId`.
   */
  listUrlsToResealAcrossOrgs(staleVersions: number[], afterId: string, limit = 100): Promise<WebhookEntity[]> {
    return this.acrossTenants.find(
      { _id: { $gt: afterId }, $or: [{ url: { $type: 'string' } }, { url_hash: { $exists: false } }, { 'url.key_version': { $in: staleVersions } }] },
      { sort: { _id: 1 }, limit },
    );
  }

  /** Active webhooks of the org subscribed to an event type. */
  listActiveForEvent(orgId: OrgId, eventType: string): Promise<WebhookEntity[]> {
    return this.findIn(orgId, { status: 'active', events: eventType }, { sort: { created_at: 1, _id: 1 } });
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
