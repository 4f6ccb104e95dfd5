import type { EncryptedValue } from '../crypto/secret-cipher';
import { defineCollection } from '../store/types';

export type WebhookStatus = 'active' | 'disabled';

export interface WebhookEntity {
  /** `whk_...` */
  _id: string;
  org_id: string;
  /**
   * The receiver URL (normalized), sealed with the SecretCipher: it may carry a credential. A string
   * in documents written before URLs were sealed, until the start-up pass or their next write seals
   * them (docs/webhooks-outbound.md "Receiver URLs at rest"); readers accept both (`openWebhookUrl`).
   */
  url: EncryptedValue | string;
  /**
   * HMAC-SHA256 of the org id and the URL under a key derived from the master key of `url.key_version`
   * (`sealWebhookUrl`). Absent in documents written before URLs were sealed.
   */
  url_hash?: string;
  /** Catalog event types (aliases are normalized before storing). */
  events: string[];
  status: WebhookStatus;
  /** The signing secret, encrypted (it is needed in clear to sign deliveries). */
  secret: EncryptedValue;
  description: string | null;
  /** Reset by a successful delivery; the webhook is disabled at 50. */
  consecutive_failures: number;
  disabled_reason: string | null;
  disabled_at: Date | null;
  last_delivery_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const WEBHOOKS = defineCollection<WebhookEntity>('webhooks', [
  {
    fields: { org_id: 1, url_hash: 1 },
    unique: true,
    partialFilterExpression: { url_hash: { $exists: true } },
    name: 'org_url_hash_unique',
    comment: '409 webhook_endpoint_duplicate (one webhook per URL per org) and the test delivery by url; replaces org_url_unique on the clear url',
  },
  { fields: { org_id: 1, status: 1, events: 1 }, comment: 'fan-out: active webhooks of an org subscribed to an event type' },
]);
