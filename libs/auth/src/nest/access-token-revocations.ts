import { Inject, Injectable } from '@nestjs/common';
import type { Repositories } from '@svc/domain';
import { REPOSITORIES } from '@svc/runtime';
import { ACCESS_TOKEN_TTL_SECONDS } from '../tokens';

/** Injection token for AccessTokenRevocations. */
export const ACCESS_TOKEN_REVOCATIONS = Symbol('ACCESS_TOKEN_REVOCATIONS');

/** Access tokens revoked before they expire (logout). Checked on every dashboard-token request. */
export interface AccessTokenRevocations {
  isRevoked(jti: string): Promise<boolean>;
  revoke(jti: string, expiresAt: Date): Promise<void>;
}

/** Revocations kept in the document store until the token would have expired anyway (TTL). */
@Injectable()
export class StoreAccessTokenRevocations implements AccessTokenRevocations {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  isRevoked(jti: string): Promise<boolean> {
    return this.repositories.revokedAccessTokens.isRevoked(jti);
  }

  revoke(jti: string, expiresAt: Date): Promise<void> {
    return this.repositories.revokedAccessTokens.revoke(jti, expiresAt);
  }
}

/** Access tokens live at most this long, so a family revocation need not be kept longer. */
const FAMILY_REVOCATION_TTL_MS = ACCESS_TOKEN_TTL_SECONDS * 1000;

/** The revocation id standing for every access token of one login (refresh-token family). */
export function familyRevocationId(family: string): string {
  return `family:${family}`;
}

/**
 * Revokes every access token issued in a refresh-token family (logout, refresh-token reuse): they
 * all expire within ACCESS_TOKEN_TTL_SECONDS of now, and the family issues no new ones.
 */
export function revokeAccessTokenFamily(revocations: AccessTokenRevocations, family: string, now = new Date()): Promise<void> {
  return revocations.revoke(familyRevocationId(family), new Date(now.getTime() + FAMILY_REVOCATION_TTL_MS));
}

/** Whether an access token is revoked: by itself (logout) or through its refresh-token family. */
export async function isAccessTokenRevoked(revocations: AccessTokenRevocations, claims: { jti: string; fam?: unknown }): Promise<boolean> {
  if (await revocations.isRevoked(claims.jti)) return true;
  return typeof claims.fam === 'string' && claims.fam.length > 0 && revocations.isRevoked(familyRevocationId(claims.fam));
}
