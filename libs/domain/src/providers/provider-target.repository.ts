import type { EncryptedValue } from '../crypto/secret-cipher';
import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import type { StoredTargetHeaders } from './target-headers';
import { PROVIDER_TARGETS, ProviderTargetEntity, ProviderTargetFormat, ProviderTargetKind } from './provider-target.entity';

export interface NewProviderTarget {
  name: string;
  provider_id: string;
  base_url: string;
  format?: ProviderTargetFormat;
  api_key?: EncryptedValue | null;
  api_key_last_four?: string | null;
  headers?: Record<string, string>;
  enabled?: boolean;
  models?: string[];
  kind?: ProviderTargetKind;
}

export class ProviderTargetRepository extends TenantRepository<ProviderTargetEntity> {
  constructor(store: DocumentStore) {
    super(store, PROVIDER_TARGETS);
  }

  /** Throws DuplicateKeyError when the name or provider id is taken in the org. */
  create(orgId: OrgId, input: NewProviderTarget, now = new Date()): Promise<ProviderTargetEntity> {
    return this.insertIn(orgId, {
      _id: newId('providerTarget'),
      name: input.name,
      provider_id: input.provider_id,
      base_url: input.base_url,
      format: input.format ?? 'openai',
      api_key: input.api_key ?? null,
      api_key_last_four: input.api_key_last_four ?? null,
      headers: { ...(input.headers ?? {}) },
      sealed_headers: {},
      enabled: input.enabled ?? true,
      models: [...(input.models ?? [])],
      last_discovery_at: null,
      last_discovery_status: null,
      created_at: now,
      updated_at: now,
      kind: input.kind ?? 'openai_compatible',
    });
  }

  findByProviderId(orgId: OrgId, providerId: string): Promise<ProviderTargetEntity | null> {
    return this.findOneIn(orgId, { provider_id: providerId });
  }

  listEnabled(orgId: OrgId): Promise<ProviderTargetEntity[]> {
    return this.findIn(orgId, { enabled: true }, { sort: { name: 1 } });
  }

  /**
   * Stores the target's headers split into clear and sealed ones, only if the document is still as
   * read (no `sealed_headers` yet, same `updated_at`): true when it was written. Nothing else changes.
   */
  async sealHeaders(orgId: OrgId, id: string, readAt: Date, stored: StoredTargetHeaders): Promise<boolean> {
    const result = await this.updateOneIn(
      orgId,
      { _id: id, sealed_headers: { $exists: false }, updated_at: readAt },
      { $set: { headers: stored.headers, sealed_headers: stored.sealed_headers } },
    );
    return result.modified === 1;
  }

  /** Targets of every organization stored before headers were sealed (no `sealed_headers`), by `_id`, after `afterId`. */
  listUnsealedHeadersAcrossOrgs(afterId: string, limit = 100): Promise<ProviderTargetEntity[]> {
    return this.acrossTenants.find({ _id: { $gt: afterId }, sealed_headers: { $exists: false } }, { sort: { _id: 1 }, limit });
  }

  async recordDiscovery(orgId: OrgId, id: string, status: 'succeeded' | 'failed', at = new Date()): Promise<void> {
    await this.updateOneIn(orgId, { _id: id }, { $set: { last_discovery_at: at, last_discovery_status: status, updated_at: at } });
  }
}
