import type { EncryptedValue } from '../crypto/secret-cipher';
import { newId } from '../shared/ids';
import type { OrgId } from '../shared/tenancy';
import { Collection, DocumentStore, DuplicateKeyError } from '../store/types';
import { CHAT_INTEGRATIONS, ChatIntegrationEntity } from './chat-integration.entity';

export interface ChatIntegrationInput {
  url: EncryptedValue;
  url_hint: string;
  enabled?: boolean;
  events?: string[];
}

/** One chat integration per organization, addressed by the organization id alone. */
export class ChatIntegrationRepository {
  private readonly collection: Collection<ChatIntegrationEntity>;

  constructor(store: DocumentStore) {
    this.collection = store.collection(CHAT_INTEGRATIONS);
  }

  get(orgId: OrgId): Promise<ChatIntegrationEntity | null> {
    return this.collection.findOne({ org_id: orgId });
  }

  /** Creates or replaces the organization's integration. */
  async put(orgId: OrgId, input: ChatIntegrationInput, now = new Date(), attempt = 1): Promise<ChatIntegrationEntity> {
    try {
      const result = await this.collection.findOneAndUpdate(
        { org_id: orgId },
        {
          $set: {
            kind: 'slack',
            url: input.url,
            url_hint: input.url_hint,
            enabled: input.enabled ?? true,
            events: [...(input.events ?? [])],
            last_error: null,
            updated_at: now,
          },
          $setOnInsert: { _id: newId('chatIntegration'), created_at: now, last_delivery_at: null },
        },
        { upsert: true },
      );
      return result as ChatIntegrationEntity;
    } catch (error) {
      if (error instanceof DuplicateKeyError && attempt === 1) return this.put(orgId, input, now, 2);
      throw error;
    }
  }

  async recordDelivery(orgId: OrgId, error: string | null, at = new Date()): Promise<void> {
    await this.collection.updateOne({ org_id: orgId }, { $set: { last_delivery_at: at, last_error: error } });
  }

  async delete(orgId: OrgId): Promise<boolean> {
    return (await this.collection.deleteOne({ org_id: orgId })) === 1;
  }
}
