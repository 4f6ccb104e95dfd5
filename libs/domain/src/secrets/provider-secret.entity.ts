import type { EncryptedValue } from '../crypto/secret-cipher';
import { defineCollection } from '../store/types';

/** A provider key stored for an organization, AES-256-GCM encrypted (SecretCipher). */
export interface ProviderSecretEntity extends EncryptedValue {
  /** `sec_...` */
  _id: string;
  org_id: string;
  /** Provider id, e.g. `openai`. One secret per provider per organization. */
  provider: string;
  label: string | null;
  last_four: string;
  created_at: Date;
  updated_at: Date;
  rotated_at: Date | null;
}

export const PROVIDER_SECRETS = defineCollection<ProviderSecretEntity>('provider_secrets', [
  {
    fields: { org_id: 1, provider: 1 },
    unique: true,
    name: 'org_provider_unique',
    comment: 'resolve the stored key of a provider on proxy requests; 409 secret_already_stored',
  },
  { fields: { key_version: 1 }, comment: 'records still sealed with an older master key (re-encryption job)' },
]);
