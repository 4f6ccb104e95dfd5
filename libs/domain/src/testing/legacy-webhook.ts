import type { SecretCipher } from '../crypto/secret-cipher';
import type { DocumentStore } from '../store/types';
import { WEBHOOKS, WebhookEntity } from '../webhooks/webhook.entity';

/** A webhook document as an earlier version wrote it; the fields a test does not give take their defaults. */
export interface LegacyWebhookFields extends Partial<Omit<WebhookEntity, 'url' | 'url_hash' | 'secret'>> {
  _id: string;
  org_id: string;
  /** The receiver URL, stored in clear. */
  url: string;
  /** The signing secret in clear (sealed here, as every version stored it); default `whsec_legacy`. */
  secret?: string;
}

/**
 * Inserts a webhook as it was stored before receiver URLs were sealed (docs/webhooks-outbound.md "Receiver
 * URLs at rest"): `url` in clear and no `url_hash`, straight into the collection, as the repository
 * no longer writes that shape.
 */
export function insertLegacyWebhook(store: DocumentStore, cipher: SecretCipher, { secret = 'whsec_legacy', ...fields }: LegacyWebhookFields): Promise<WebhookEntity> {
  const at = new Date();
  return store.collection(WEBHOOKS).insertOne({
    events: ['budget.exceeded'],
    status: 'active',
    description: null,
    consecutive_failures: 0,
    disabled_reason: null,
    disabled_at: null,
    last_delivery_at: null,
    created_at: at,
    updated_at: at,
    ...fields,
    secret: cipher.encrypt(fields.org_id, secret),
  });
}
