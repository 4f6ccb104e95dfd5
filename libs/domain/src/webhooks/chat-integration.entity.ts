import type { EncryptedValue } from '../crypto/secret-cipher';
import { defineCollection } from '../store/types';

/** An organization's team-chat integration: a Slack-compatible incoming-webhook URL (one per org). */
export interface ChatIntegrationEntity {
  /** `chat_...` */
  _id: string;
  org_id: string;
  kind: 'slack';
  /** The incoming-webhook URL is a credential: stored encrypted. */
  url: EncryptedValue;
  /** For display: scheme, host and the last four characters. */
  url_hint: string;
  enabled: boolean;
  /** Event types to post; empty = every event. */
  events: string[];
  last_delivery_at: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export const CHAT_INTEGRATIONS = defineCollection<ChatIntegrationEntity>('chat_integrations', [
  { fields: { org_id: 1 }, unique: true, name: 'org_unique', comment: 'the chat integration of an org (one per org), read per event' },
]);
