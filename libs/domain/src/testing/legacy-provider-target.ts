import type { DocumentStore } from '../store/types';
import { PROVIDER_TARGETS, ProviderTargetEntity } from '../providers/provider-target.entity';

/** A provider target document as an earlier version wrote it; the fields a test does not give take their defaults. */
export interface LegacyProviderTargetFields extends Partial<Omit<ProviderTargetEntity, 'sealed_headers'>> {
  _id: string;
  org_id: string;
  provider_id: string;
  base_url: string;
  /** Stored in clear, credential names included. */
  headers: Record<string, string>;
}

/**
 * Inserts a provider target as it was stored before credential headers were sealed: every header in
 * clear in `headers` and no `sealed_headers`, straight into the collection, as the repository no
 * longer writes that shape.
 */
export function insertLegacyProviderTarget(store: DocumentStore, fields: LegacyProviderTargetFields): Promise<ProviderTargetEntity> {
  const at = new Date();
  return store.collection(PROVIDER_TARGETS).insertOne({
    name: fields.provider_id,
    format: 'openai',
    kind: 'openai_compatible',
    api_key: null,
    api_key_last_four: null,
    enabled: true,
    models: [],
    last_discovery_at: null,
    last_discovery_status: null,
    created_at: at,
    updated_at: at,
    ...fields,
  });
}
