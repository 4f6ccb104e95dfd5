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

/** The successor a rotation records: its id is the `jti` of the signed JWT, its family the presented token's. */
export interface RefreshTokenSuccessor {
  id: string;
  user_id: string;
  family_id: string;
  ttl_ms: number;
}

/**
 * What a rotation did: `rotated` (the presented token, now used, and a live successor); `not_live`
 * (the presented token is unknown, expired, used, revoked or of another family: nothing recorded);
 * `ended` (the family was ended while rotating, by a logout or reuse detection: the successor is dead).
 */
export type RotationOutcome = { status: 'rotated'; used: RefreshTokenEntity } | { status: 'not_live' } | { status: 'ended' };

/** Passes of `endFamily` at most: each pass ends the tokens a concurrent rotation made live during the previous one. */
const MAX_END_PASSES = 20;

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

  /**
   * Rotates a live token to its successor so that a family ended at the same time (`endFamily`,
   * `revokeFamily`) never keeps a live token. The successor is recorded first; then the presented
   * token is marked used only if it is still live (one conditional update, which a concurrent end
   * of the same token excludes); then the successor is read back. An end that reached the presented
   * token first makes the mark fail (the successor, which nobody holds, is deleted); an end that
   * came after the successor was recorded finds it and ends it too, and the read back says so.
   */
  async rotate(orgId: OrgId, id: string, successor: RefreshTokenSuccessor, now = new Date()): Promise<RotationOutcome> {
    await this.issueWithId(orgId, successor.id, successor, now);
    const used = await this.findOneAndUpdateIn(
      orgId,
      { _id: id, family_id: successor.family_id, used_at: null, revoked_at: null, expires_at: { $gt: now } },
      { $set: { used_at: now, replaced_by: successor.id } },
    );
    if (!used) {
      await this.deleteById(orgId, successor.id);
      return { status: 'not_live' };
    }
    const recorded = await this.findById(orgId, successor.id);
    if (!recorded || recorded.used_at || recorded.revoked_at) {
      await this.updateOneIn(orgId, { _id: successor.id, revoked_at: null }, { $set: { revoked_at: now } });
      return { status: 'ended' };
    }
    return { status: 'rotated', used };
  }

  /**
   * Ends a login (logout): every live token of the family is marked used with no successor and
   * revoked (presenting one later reads as "logged out", not reuse), pass after pass until a pass
   * finds none, so a successor a concurrent `rotate` recorded meanwhile is ended too; then the rest
   * of the family (rotated tokens) is revoked. Returns how many live tokens it ended.
   */
  async endFamily(orgId: OrgId, familyId: string, now = new Date()): Promise<number> {
    let ended = 0;
    for (let pass = 0; pass < MAX_END_PASSES; pass += 1) {
      const result = await this.updateManyIn(orgId, { family_id: familyId, used_at: null, revoked_at: null }, { $set: { used_at: now, revoked_at: now, replaced_by: null } });
      if (result.modified === 0) break;
      ended += result.modified;
    }
    await this.revokeFamily(orgId, familyId, now);
    return ended;
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
   * Ends every login of a user (an operator's password reset): each live token is marked used with
   * no successor and revoked, the shape a logout leaves (presenting it again answers "logged out"
   * rather than "reuse"), and every other token of the user is revoked. Returns how many live tokens
   * it ended and the families with a token issued since `recentSince`: the logins whose access
   * tokens may still be valid, for the caller to revoke (access tokens are checked without a lookup).
   */
  async endAllForUser(orgId: OrgId, userId: string, recentSince: Date, now = new Date()): Promise<{ ended: number; recentFamilies: string[] }> {
    const recent = await this.findIn(orgId, { user_id: userId, created_at: { $gte: recentSince } }, { projection: { family_id: 1 } });
    const ended = await this.updateManyIn(orgId, { user_id: userId, used_at: null, revoked_at: null }, { $set: { used_at: now, revoked_at: now } });
    await this.revokeAllForUser(orgId, userId, now);
    return { ended: ended.modified, recentFamilies: [...new Set(recent.map((token) => token.family_id))] };
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
