import { familyRevocationId } from '@svc/auth';
import { asOrgId, createRepositories, hashPassword, Repositories, storeTargets, StoreUnderTest, verifyPassword } from '@svc/domain';
import { PasswordResetError, resetPassword } from './reset-password.usecase';

const ORG = asOrgId('org_reset_spec');
const OLD_PASSWORD = 'the-old-owner-password';
const NEW_PASSWORD = 'the-new-owner-password';
const MINUTE = 60_000;

// Through the repositories only, so the same contract holds on MongoDB (MONGODB_URI) as on the embedded store.
describe.each(storeTargets(process.env.MONGODB_URI))('resetPassword ($name)', (target) => {
  let ctx: StoreUnderTest;
  let repos: Repositories;

  beforeEach(async () => {
    ctx = await target.open();
    repos = createRepositories(ctx.store);
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  const owner = async () => repos.users.create(ORG, { email: 'owner@example.com', role: 'Owner', password_hash: await hashPassword(OLD_PASSWORD) });

  it("sets an Argon2id hash of the new password and ends every session of the user, and no one else's", async () => {
    const user = await owner();
    const other = await repos.users.create(ORG, { email: 'member@example.com', role: 'Member', password_hash: await hashPassword(OLD_PASSWORD) });
    const now = new Date();
    const week = 7 * 24 * 60 * MINUTE;
    const stale = await repos.refreshTokens.issue(ORG, { user_id: user._id, ttl_ms: week }, new Date(now.getTime() - 60 * MINUTE));
    const recent = await repos.refreshTokens.issue(ORG, { user_id: user._id, ttl_ms: week }, new Date(now.getTime() - 10 * MINUTE));
    const others = await repos.refreshTokens.issue(ORG, { user_id: other._id, ttl_ms: week }, now);

    const result = await resetPassword(repos, ' Owner@Example.com ', NEW_PASSWORD, now);
    expect(result).toEqual({ userId: user._id, orgId: ORG, email: 'owner@example.com', role: 'Owner', sessionsEnded: 2, loginsRevoked: 1 });
    const updated = await repos.users.findById(ORG, user._id);
    expect(updated?.password_hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(updated?.password_hash ?? '', NEW_PASSWORD)).toBe(true);
    expect(await verifyPassword(updated?.password_hash ?? '', OLD_PASSWORD)).toBe(false);
    for (const token of [stale, recent]) expect(await repos.refreshTokens.findById(ORG, token._id)).toMatchObject({ used_at: now, revoked_at: now, replaced_by: null });
    // Access tokens of the recent login die with it; the stale login's have expired already.
    expect(await repos.revokedAccessTokens.isRevoked(familyRevocationId(recent.family_id))).toBe(true);
    expect(await repos.revokedAccessTokens.isRevoked(familyRevocationId(stale.family_id))).toBe(false);
    expect(await repos.refreshTokens.findById(ORG, others._id)).toMatchObject({ used_at: null, revoked_at: null });
    expect(await verifyPassword((await repos.users.findById(ORG, other._id))?.password_hash ?? '', OLD_PASSWORD)).toBe(true);
  });

  it('refuses an unknown e-mail and a password out of bounds, changing nothing', async () => {
    const user = await owner();
    const token = await repos.refreshTokens.issue(ORG, { user_id: user._id, ttl_ms: 60 * MINUTE });
    for (const [email, password, reason, message] of [
      ['nobody@example.com', NEW_PASSWORD, 'unknown_user', 'No user has the e-mail nobody@example.com'],
      ['owner@example.com', 'eleven-char', 'invalid_password', 'The new password must be at least 12 characters (it has 11)'],
      ['owner@example.com', 'x'.repeat(257), 'invalid_password', 'The new password must be at most 256 characters (it has 257)'],
      ['owner@example.com', `${NEW_PASSWORD}\nmore`, 'invalid_password', 'The new password must be one line'],
    ]) {
      const error = await resetPassword(repos, email, password).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PasswordResetError);
      expect(error).toMatchObject({ reason, message });
    }
    expect(await repos.users.findById(ORG, user._id)).toEqual(user);
    expect(await repos.refreshTokens.findById(ORG, token._id)).toEqual(token);
  });
});
