import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { REFRESH_TOKENS, RefreshTokenEntity } from './refresh-token.entity';

export interface NewRefreshToken {
  user_id: string;
  /** Omit to start a new family (a login). */
  family_id?: string;
  ttl_ms: number;
}

export class RefreshTokenRepository extends TenantRepository<RefreshTokenEntity> {
  constructor(store: DocumentStore) {
    super(store, REFRESH_TOKENS);
    this.stampsUpdatedAt = false;
  }

  issue(orgId: OrgId, input: NewRefreshToken, now = new Date()): Promise<RefreshTokenEntity> {
    const id = newId('refreshToken');
    return this.insertIn(orgId, {
      _id: id,
      user_id: input.user_id,
      family_id: input.family_id ?? id,
      created_at: now,
      expires_at: new Date(now.getTime() + input.ttl_ms),
      used_at: null,
      revoked_at: null,
      replaced_by: null,
    });
  }

  /**
   * Marks a live token used, exactly once. Null when it is unknown, expired, revoked or already
   * used: the caller then treats the presentation as reuse and revokes the family.
   */
  markUsed(orgId: OrgId, id: string, replacedBy: string | null, now = new Date()): Promise<RefreshTokenEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, used_at: null, revoked_at: null, expires_at: { $gt: now } },
      { $set: { used_at: now, replaced_by: replacedBy } },
    );
  }

  async revoke(orgId: OrgId, id: string, now = new Date()): Promise<boolean> {
    const result = await this.updateOneIn(orgId, { _id: id, revoked_at: null }, { $set: { revoked_at: now } });
    return result.modified === 1;
  }

  async revokeFamily(orgId: OrgId, familyId: string, now = new Date()): Promise<number> {
    const result = await this.updateManyIn(orgId, { family_id: familyId, revoked_at: null }, { $set: { revoked_at: now } });
    return result.modified;
  }

  async revokeAllForUser(orgId: OrgId, userId: string, now = new Date()): Promise<number> {
    const result = await this.updateManyIn(orgId, { user_id: userId, revoked_at: null }, { $set: { revoked_at: now } });
    return result.modified;
  }

  /**
   * Records a token whose id the issuer chose: the `jti` of the signed JWT (TokenService picks it),
   * so the presented token finds its record. Otherwise like `issue`.
   */
  issueWithId(orgId: OrgId, id: string, input: NewRefreshToken, now = new Date()): Promise<RefreshTokenEntity> {
    return this.insertIn(orgId, {
      _id: id,
      user_id: input.user_id,
      family_id: input.family_id ?? id,
      created_at: now,
      expires_at: new Date(now.getTime() + input.ttl_ms),
      used_at: null,
      revoked_at: null,
      replaced_by: null,
    });
  }
}
