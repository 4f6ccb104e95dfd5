import { Inject, Injectable } from '@nestjs/common';
import type { Repositories } from '@svc/domain';
import { REPOSITORIES } from '@svc/runtime';

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
