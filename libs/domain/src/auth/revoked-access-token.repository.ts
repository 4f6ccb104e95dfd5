import type { Collection, DocumentStore } from '../store/types';
import { defineCollection } from '../store/types';

/** An access token revoked before it expired (logout); its JWT `jti` is the `_id`. */
export interface RevokedAccessTokenEntity {
  _id: string;
  revoked_at: Date;
  /** The token's own expiry: after it the record has nothing left to refuse. */
  expires_at: Date;
}

export const REVOKED_ACCESS_TOKENS = defineCollection<RevokedAccessTokenEntity>('revoked_access_tokens', [
  { fields: { expires_at: 1 }, expireAfterSeconds: 0, comment: 'a revocation disappears once the token would have expired' },
]);

/** Access tokens are JWTs checked without a lookup, so logout records their `jti` here until expiry. */
export class RevokedAccessTokenRepository {
  private readonly collection: Collection<RevokedAccessTokenEntity>;

  constructor(store: DocumentStore) {
    this.collection = store.collection(REVOKED_ACCESS_TOKENS);
  }

  async revoke(jti: string, expiresAt: Date, now = new Date()): Promise<void> {
    await this.collection.updateOne(
      { _id: jti },
      { $setOnInsert: { _id: jti, revoked_at: now, expires_at: expiresAt } },
      { upsert: true },
    );
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.collection.count({ _id: jti })) > 0;
  }
}
