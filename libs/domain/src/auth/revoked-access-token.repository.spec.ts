import { storeTargets, StoreUnderTest } from '../testing/stores';
import { RevokedAccessTokenRepository } from './revoked-access-token.repository';

describe.each(storeTargets(process.env.MONGODB_URI))('RevokedAccessTokenRepository ($name)', (target) => {
  let ctx: StoreUnderTest;
  let revoked: RevokedAccessTokenRepository;

  beforeEach(async () => {
    ctx = await target.open();
    revoked = new RevokedAccessTokenRepository(ctx.store);
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  it('remembers a revoked jti until the token expires, idempotently', async () => {
    expect(await revoked.isRevoked('jti-1')).toBe(false);
    await revoked.revoke('jti-1', new Date(Date.now() + 60_000));
    await revoked.revoke('jti-1', new Date(Date.now() + 60_000));
    expect(await revoked.isRevoked('jti-1')).toBe(true);
    expect(await revoked.isRevoked('jti-2')).toBe(false);
  });

  it('takes racing revocations of the same jti (two logouts at once) without an error', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    await expect(Promise.all(Array.from({ length: 8 }, () => revoked.revoke('jti-race', expiresAt)))).resolves.toHaveLength(8);
    expect(await revoked.isRevoked('jti-race')).toBe(true);
  });

  it('forgets a revocation once the token has expired', async () => {
    await revoked.revoke('jti-old', new Date(Date.now() - 1_000));
    expect(await revoked.isRevoked('jti-old')).toBe(false);
  });
});
