import { AccessTokenRevocations, familyRevocationId, isAccessTokenRevoked, revokeAccessTokenFamily } from './access-token-revocations';
import { ACCESS_TOKEN_TTL_SECONDS } from '../tokens';

class MapRevocations implements AccessTokenRevocations {
  readonly entries = new Map<string, Date>();
  async isRevoked(jti: string): Promise<boolean> {
    return this.entries.has(jti);
  }
  async revoke(jti: string, expiresAt: Date): Promise<void> {
    this.entries.set(jti, expiresAt);
  }
}

describe('access token revocation by token and by refresh-token family', () => {
  it('revokes every access token of a family until the longest of them expires', async () => {
    const revocations = new MapRevocations();
    const now = new Date('2030-01-01T00:00:00Z');
    await revokeAccessTokenFamily(revocations, 'fam-1', now);
    expect(revocations.entries.get(familyRevocationId('fam-1'))).toEqual(new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000));
    expect(await isAccessTokenRevoked(revocations, { jti: 'a', fam: 'fam-1' })).toBe(true);
    expect(await isAccessTokenRevoked(revocations, { jti: 'b', fam: 'fam-2' })).toBe(false);
    // Tokens issued before families were in the claims: only their own revocation counts.
    expect(await isAccessTokenRevoked(revocations, { jti: 'c' })).toBe(false);
    await revocations.revoke('c', now);
    expect(await isAccessTokenRevoked(revocations, { jti: 'c' })).toBe(true);
    // A family id never matches a token id.
    expect(await isAccessTokenRevoked(revocations, { jti: 'fam-1' })).toBe(false);
  });
});
