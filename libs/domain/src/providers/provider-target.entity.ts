import type { EncryptedValue } from '../crypto/secret-cipher';
import { defineCollection } from '../store/types';

export const PROVIDER_TARGET_FORMATS = ['openai', 'anthropic'] as const;
export type ProviderTargetFormat = (typeof PROVIDER_TARGET_FORMATS)[number];

/** An upstream endpoint an organization configured (self-hosted or cloud-hosted compatible server). */
export interface ProviderTargetEntity {
  /** `tgt_...` */
  _id: string;
  org_id: string;
  name: string;
  /** Routing id, used as `provider_id/model` on the generic endpoint; unique per org. */
  provider_id: string;
  base_url: string;
  format: ProviderTargetFormat;
  /** The target's API key, encrypted; null when it needs none. */
  api_key: EncryptedValue | null;
  api_key_last_four: string | null;
  /**
   * Extra headers sent upstream, in clear (non-secret; lower-cased names). A document written before
   * credential names were refused may hold one here until the start-up pass seals it.
   */
  headers: Record<string, string>;
  /**
   * Credential headers (`isCredentialHeader`) of a target configured before they were refused, sealed
   * with the SecretCipher (organization id as associated data) and sent upstream with `headers`.
   * Absent on a document the start-up pass has not reached yet (`sealProviderTargetHeaders`).
   */
  sealed_headers?: Record<string, EncryptedValue>;
  enabled: boolean;
  /** Models configured by hand, in addition to discovered ones. */
  models: string[];
  last_discovery_at: Date | null;
  last_discovery_status: 'succeeded' | 'failed' | null;
  created_at: Date;
  updated_at: Date;
  /** What the server is, for discovery and routing (absent on older records: `openai_compatible`). */
  kind?: ProviderTargetKind;
}

export const PROVIDER_TARGETS = defineCollection<ProviderTargetEntity>('provider_targets', [
  { fields: { org_id: 1, name: 1 }, unique: true, name: 'org_name_unique', comment: 'target names are unique per org' },
  {
    fields: { org_id: 1, provider_id: 1 },
    unique: true,
    name: 'org_provider_id_unique',
    comment: 'route `provider_id/model` to the org target (findByProviderId)',
  },
]);

/**
 * `openai_compatible`: `base_url` is the SDK base URL (ends with `/v1`); models at `{base}/models`.
 * `ollama`: `base_url` is the server root; models at `/api/tags`, chat at `{root}/v1`.
 */
export const PROVIDER_TARGET_KINDS = ['openai_compatible', 'ollama'] as const;
export type ProviderTargetKind = (typeof PROVIDER_TARGET_KINDS)[number];
