import type { EncryptedValue } from '../crypto/secret-cipher';
import { defineCollection } from '../store/types';

export type WebhookStatus = 'active' | 'disabled';

export interface WebhookEntity {
  /** `whk_...` */
  _id: string;
  org_id: string;
  url: string;
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
  { fields: { org_id: 1, url: 1 }, unique: true, name: 'org_url_unique', comment: '409 webhook_endpoint_duplicate: one webhook per URL per org' },
  { fields: { org_id: 1, status: 1, events: 1 }, comment: 'fan-out: active webhooks of an org subscribed to an event type' },
]);
