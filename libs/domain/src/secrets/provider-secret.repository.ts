import type { EncryptedValue } from '../crypto/secret-cipher';
import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { PROVIDER_SECRETS, ProviderSecretEntity } from './provider-secret.entity';

export interface NewProviderSecret {
  provider: string;
  encrypted: EncryptedValue;
  last_four: string;
  label?: string | null;
}

function encryptedFields(value: EncryptedValue): EncryptedValue {
  return { ciphertext: value.ciphertext, iv: value.iv, tag: value.tag, key_version: value.key_version };
}

export class ProviderSecretRepository extends TenantRepository<ProviderSecretEntity> {
  constructor(store: DocumentStore) {
    super(store, PROVIDER_SECRETS);
    this.defaultSort = { provider: 1 };
  }

  /** Throws DuplicateKeyError (index `org_provider_unique`) when the provider already has a secret. */
  create(orgId: OrgId, input: NewProviderSecret, now = new Date()): Promise<ProviderSecretEntity> {
    return this.insertIn(orgId, {
      _id: newId('providerSecret'),
      provider: input.provider,
      label: input.label ?? null,
      last_four: input.last_four,
      ...encryptedFields(input.encrypted),
      created_at: now,
      updated_at: now,
      rotated_at: null,
    });
  }

  findByProvider(orgId: OrgId, provider: string): Promise<ProviderSecretEntity | null> {
    return this.findOneIn(orgId, { provider });
  }

  /** Every secret of the organization, by provider (callers show metadata only). */
  listAll(orgId: OrgId): Promise<ProviderSecretEntity[]> {
    return this.findIn(orgId, {}, { sort: { provider: 1 } });
  }

  /** Replaces the stored key of a provider; null when none is stored. */
  rotate(orgId: OrgId, provider: string, encrypted: EncryptedValue, lastFour: string, label?: string | null, at = new Date()): Promise<ProviderSecretEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { provider },
      {
        $set: {
          ...encryptedFields(encrypted),
          last_four: lastFour,
          ...(label !== undefined ? { label } : {}),
          rotated_at: at,
          updated_at: at,
        },
      },
    );
  }

  async deleteByProvider(orgId: OrgId, provider: string): Promise<boolean> {
    return (await this.deleteManyIn(orgId, { provider })) > 0;
  }

  /**
   * Cross-tenant by design, for the master-key re-encryption job: records sealed with another
   * key version than `currentVersion` (each carries its org id for decrypting).
   */
  listSealedWithOtherKeyAcrossOrgs(currentVersion: number, limit = 100): Promise<ProviderSecretEntity[]> {
    return this.acrossTenants.find({ key_version: { $ne: currentVersion } }, { sort: { _id: 1 }, limit });
  }

  /** Stores a re-sealed record, only if it was not changed meanwhile (same previous ciphertext). */
  async replaceEncryption(orgId: OrgId, id: string, previous: EncryptedValue, next: EncryptedValue): Promise<boolean> {
    const result = await this.updateOneIn(
      orgId,
      { _id: id, ciphertext: previous.ciphertext },
      { $set: { ...encryptedFields(next) } },
    );
    return result.modified === 1;
  }
}
