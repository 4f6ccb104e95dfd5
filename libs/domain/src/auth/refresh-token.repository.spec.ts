import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { RefreshTokenRepository } from './refresh-token.repository';

const WEEK = 7 * 24 * 3600_000;

describe.each(storeTargets(process.env.MONGODB_URI))('RefreshTokenRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new RefreshTokenRepository(store));
  const now = () => new Date(t.ctx.clock.now());

  it('issues a token that starts its own family, or joins one', async () => {
    const first = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    expect(first._id).toMatch(/^rt_/);
    expect(first).toMatchObject({ family_id: first._id, used_at: null, revoked_at: null, replaced_by: null });
    expect(first.expires_at.getTime() - first.created_at.getTime()).toBe(WEEK);
    const next = await t.repo.issue(ORG_A, { user_id: 'usr_1', family_id: first.family_id, ttl_ms: WEEK }, now());
    expect(next.family_id).toBe(first._id);
  });

  it('marks a token used exactly once (reuse detection)', async () => {
    const token = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    expect(await t.repo.markUsed(ORG_A, token._id, 'rt_next', now())).toMatchObject({ replaced_by: 'rt_next' });
    expect(await t.repo.markUsed(ORG_A, token._id, 'rt_other', now())).toBeNull();
  });

  it('refuses revoked and expired tokens, and forgets expired ones', async () => {
    const revoked = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    expect(await t.repo.revoke(ORG_A, revoked._id, now())).toBe(true);
    expect(await t.repo.revoke(ORG_A, revoked._id, now())).toBe(false);
    expect(await t.repo.markUsed(ORG_A, revoked._id, null, now())).toBeNull();
    const short = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: 1000 }, now());
    t.ctx.clock.advance(2000);
    expect(await t.repo.markUsed(ORG_A, short._id, null, now())).toBeNull();
    expect(await t.repo.findById(ORG_A, short._id)).toBeNull();
  });

  it('revokes a family and every token of a user', async () => {
    const a = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    await t.repo.issue(ORG_A, { user_id: 'usr_1', family_id: a.family_id, ttl_ms: WEEK }, now());
    await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    await t.repo.issue(ORG_A, { user_id: 'usr_2', ttl_ms: WEEK }, now());
    expect(await t.repo.revokeFamily(ORG_A, a.family_id, now())).toBe(2);
    expect(await t.repo.revokeAllForUser(ORG_A, 'usr_1', now())).toBe(1);
    expect(await t.repo.count(ORG_A, { revoked_at: null })).toBe(1);
  });

  it('isolates tenants', async () => {
    const token = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    await expectTenantIsolation(t.repo, token, { user_id: 'usr_evil' });
    expect(await t.repo.markUsed(ORG_B, token._id, null, now())).toBeNull();
    expect(await t.repo.revoke(ORG_B, token._id, now())).toBe(false);
    expect(await t.repo.revokeFamily(ORG_B, token.family_id, now())).toBe(0);
    expect(await t.repo.revokeAllForUser(ORG_B, 'usr_1', now())).toBe(0);
    expect(await t.repo.findById(ORG_A, token._id)).toEqual(token);
  });
});
