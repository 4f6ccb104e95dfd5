import { defineCollection } from '../store/types';

/**
 * One issued refresh token (its JWT `jti` is the `_id`). Tokens of one login form a family; using
 * a token twice (reuse after rotation) revokes the family.
 */
export interface RefreshTokenEntity {
  /** `rt_...`, the token's `jti`. */
  _id: string;
  org_id: string;
  user_id: string;
  family_id: string;
  created_at: Date;
  /** Removed by TTL when reached. */
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  /** The token that replaced it on refresh. */
  replaced_by: string | null;
}

export const REFRESH_TOKENS = defineCollection<RefreshTokenEntity>('refresh_tokens', [
  { fields: { expires_at: 1 }, expireAfterSeconds: 0, comment: 'refresh tokens disappear when they expire' },
  { fields: { org_id: 1, family_id: 1 }, comment: 'revoke a whole family (reuse detected, logout)' },
  { fields: { org_id: 1, user_id: 1 }, comment: "revoke all of a user's tokens (member removed)" },
]);
