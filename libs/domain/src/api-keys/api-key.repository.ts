import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { API_KEYS, ApiKeyEntity } from './api-key.entity';

export interface NewApiKey {
  name: string;
  key_hash: string;
  key_prefix: string;
  last_four: string;
  scopes: string[];
  ip_allowlist?: string[];
  team_id?: string | null;
  created_by?: string | null;
  /** null or absent: the key never expires. */
  expires_at?: Date | null;
}

export interface RotatedApiKey {
  previous: ApiKeyEntity;
  current: ApiKeyEntity;
}

export class ApiKeyRepository extends TenantRepository<ApiKeyEntity> {
  constructor(store: DocumentStore) {
    super(store, API_KEYS);
    this.stampsUpdatedAt = false;
  }

  /** Throws DuplicateKeyError (index `current_name_unique`) when a current key has the name. */
  create(orgId: OrgId, input: NewApiKey, now = new Date()): Promise<ApiKeyEntity> {
    return this.insertIn(orgId, this.newRecord(newId('apiKey'), input, now));
  }

  /**
   * Cross-tenant by design: a gateway request carries only the key; its record names the
   * organization. Returns revoked and rotated keys too; the caller decides what they mean.
   */
  findByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.acrossTenants.findOne({ key_hash: keyHash });
  }

  /** The current (active, not rotated) key with that name. */
  findByName(orgId: OrgId, name: string): Promise<ApiKeyEntity | null> {
    return this.findOneIn(orgId, { name, status: 'active', replaced_by: null });
  }

  revoke(orgId: OrgId, id: string, at = new Date()): Promise<ApiKeyEntity | null> {
    return this.findOneAndUpdateIn(orgId, { _id: id, status: 'active' }, { $set: { status: 'revoked', revoked_at: at } });
  }

  /**
   * Replaces a current key by a new one with the same name, scopes, allowlist, team and expiry
   * (unless `replacement.expires_at` is given: null = never). The old key works until `graceUntil`,
   * never past its own expiry. Null when the key does not exist, is revoked or was already rotated.
   */
  async rotate(
    orgId: OrgId,
    id: string,
    replacement: Pick<NewApiKey, 'key_hash' | 'key_prefix' | 'last_four' | 'expires_at'>,
    graceUntil: Date,
    now = new Date(),
  ): Promise<RotatedApiKey | null> {
    const newKeyId = newId('apiKey');
    const existing = await this.findOneIn(orgId, { _id: id, status: 'active', replaced_by: null });
    if (!existing) return null;
    // expires_at never changes after creation, so the read above cannot go stale before the update.
    const expiresAt = existing.expires_at ?? null;
    const graceEnd = expiresAt && expiresAt < graceUntil ? expiresAt : graceUntil;
    const previous = await this.findOneAndUpdateIn(
      orgId,
      { _id: id, status: 'active', replaced_by: null },
      { $set: { replaced_by: newKeyId, grace_until: graceEnd } },
    );
    if (!previous) return null;
    try {
      const current = await this.insertIn(
        orgId,
        this.newRecord(
          newKeyId,
          {
            ...previous,
            key_hash: replacement.key_hash,
            key_prefix: replacement.key_prefix,
            last_four: replacement.last_four,
            expires_at: replacement.expires_at === undefined ? (previous.expires_at ?? null) : replacement.expires_at,
          },
          now,
        ),
      );
      return { previous, current };
    } catch (error) {
      await this.updateOneIn(orgId, { _id: id, replaced_by: newKeyId }, { $set: { replaced_by: null, grace_until: null } });
      throw error;
    }
  }

  /** Records use; only ever moves `last_used_at` forward. */
  async touchLastUsed(orgId: OrgId, id: string, at = new Date()): Promise<void> {
    await this.updateOneIn(orgId, { _id: id }, { $max: { last_used_at: at } });
  }

  listByTeam(orgId: OrgId, teamId: string): Promise<ApiKeyEntity[]> {
    return this.findIn(orgId, { team_id: teamId }, { sort: { created_at: -1, _id: -1 } });
  }

  private newRecord(id: string, input: NewApiKey, now: Date): Omit<ApiKeyEntity, 'org_id'> {
    return {
      _id: id,
      name: input.name,
      key_hash: input.key_hash,
      key_prefix: input.key_prefix,
      last_four: input.last_four,
      scopes: [...input.scopes],
      ip_allowlist: [...(input.ip_allowlist ?? [])],
      status: 'active',
      replaced_by: null,
      grace_until: null,
      expires_at: input.expires_at ?? null,
      team_id: input.team_id ?? null,
      created_by: input.created_by ?? null,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    };
  }
}
