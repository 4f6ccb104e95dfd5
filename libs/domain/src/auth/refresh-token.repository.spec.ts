import type { OrgId } from '../shared/tenancy';
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

  it('ends every login of a user as a logout would, naming the families issued recently', async () => {
    const old = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    t.ctx.clock.advance(3600_000);
    const since = now();
    const rotated = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    const next = await t.repo.issue(ORG_A, { user_id: 'usr_1', family_id: rotated.family_id, ttl_ms: WEEK }, now());
    await t.repo.markUsed(ORG_A, rotated._id, next._id, now());
    const other = await t.repo.issue(ORG_A, { user_id: 'usr_2', ttl_ms: WEEK }, now());
    const elsewhere = await t.repo.issue(ORG_B, { user_id: 'usr_1', ttl_ms: WEEK }, now());

    const result = await t.repo.endAllForUser(ORG_A, 'usr_1', since, now());
    expect(result).toEqual({ ended: 2, recentFamilies: [rotated.family_id] });
    for (const id of [old._id, next._id]) {
      expect(await t.repo.findById(ORG_A, id)).toMatchObject({ used_at: now(), revoked_at: now(), replaced_by: null });
    }
    expect(await t.repo.findById(ORG_A, rotated._id)).toMatchObject({ replaced_by: next._id, revoked_at: now() });
    expect(await t.repo.findById(ORG_A, other._id)).toMatchObject({ used_at: null, revoked_at: null });
    expect(await t.repo.findById(ORG_B, elsewhere._id)).toMatchObject({ used_at: null, revoked_at: null });
    expect(await t.repo.endAllForUser(ORG_A, 'usr_1', since, now())).toEqual({ ended: 0, recentFamilies: [rotated.family_id] });
  });

  const successorOf = (token: { family_id: string }, id = `rt_next_${Math.random().toString(36).slice(2)}`) => ({ id, user_id: 'usr_1', family_id: token.family_id, ttl_ms: WEEK });

  it('rotates a live token to a live successor of its family, once', async () => {
    const token = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    const successor = successorOf(token);
    expect(await t.repo.rotate(ORG_A, token._id, successor, now())).toEqual({ status: 'rotated', used: expect.objectContaining({ _id: token._id, used_at: now(), replaced_by: successor.id }) });
    expect(await t.repo.findById(ORG_A, successor.id)).toMatchObject({ family_id: token.family_id, used_at: null, revoked_at: null, replaced_by: null });
    // Presented again: not live, and the second successor is not recorded.
    const again = successorOf(token);
    expect(await t.repo.rotate(ORG_A, token._id, again, now())).toEqual({ status: 'not_live' });
    expect(await t.repo.findById(ORG_A, again.id)).toBeNull();
  });

  it('refuses to rotate an unknown, revoked, expired or foreign token, or into another family, recording nothing', async () => {
    const revoked = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    await t.repo.revoke(ORG_A, revoked._id, now());
    const other = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    const short = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: 1000 }, now());
    t.ctx.clock.advance(2000);
    const cases: [OrgId, string, ReturnType<typeof successorOf>][] = [
      [ORG_A, 'rt_unknown', successorOf({ family_id: 'fam_x' })],
      [ORG_A, revoked._id, successorOf(revoked)],
      [ORG_A, short._id, successorOf(short)],
      [ORG_B, other._id, successorOf(other)],
      [ORG_A, other._id, successorOf({ family_id: revoked.family_id })],
    ];
    for (const [org, id, successor] of cases) {
      expect(await t.repo.rotate(org, id, successor, now())).toEqual({ status: 'not_live' });
      expect(await t.repo.findById(org, successor.id)).toBeNull();
    }
    expect(await t.repo.findById(ORG_A, other._id)).toMatchObject({ used_at: null, revoked_at: null });
  });

  it('ends a family as a logout: live tokens used with no successor and revoked, rotated ones revoked', async () => {
    const first = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    const successor = successorOf(first);
    await t.repo.rotate(ORG_A, first._id, successor, now());
    const otherLogin = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
    expect(await t.repo.endFamily(ORG_A, first.family_id, now())).toBe(1);
    expect(await t.repo.findById(ORG_A, successor.id)).toMatchObject({ used_at: now(), revoked_at: now(), replaced_by: null });
    expect(await t.repo.findById(ORG_A, first._id)).toMatchObject({ replaced_by: successor.id, revoked_at: now() });
    expect(await t.repo.findById(ORG_A, otherLogin._id)).toMatchObject({ used_at: null, revoked_at: null });
    expect(await t.repo.endFamily(ORG_B, otherLogin.family_id, now())).toBe(0);
    expect(await t.repo.endFamily(ORG_A, first.family_id, now())).toBe(0);
  });

  it('a rotation racing the end of its family never leaves a live token, whichever step each has reached', async () => {
    const outcomes = new Set<string>();
    for (let i = 0; i < 60; i += 1) {
      const token = await t.repo.issue(ORG_A, { user_id: 'usr_1', ttl_ms: WEEK }, now());
      // The end starts after 0-5 turns of the event loop, so it meets the rotation at each of its steps.
      const endLater = async () => {
        for (let turn = 0; turn < i % 6; turn += 1) await new Promise((resolve) => setImmediate(resolve));
        return t.repo.endFamily(ORG_A, token.family_id, now());
      };
      const [outcome] = await Promise.all([t.repo.rotate(ORG_A, token._id, successorOf(token), now()), endLater()]);
      outcomes.add(outcome.status);
      expect({ i, live: await t.repo.count(ORG_A, { family_id: token.family_id, revoked_at: null }) }).toEqual({ i, live: 0 });
      expect({ i, unused: await t.repo.count(ORG_A, { family_id: token.family_id, used_at: null }) }).toEqual({ i, unused: 0 });
    }
    // The race was really run: the rotation won some and lost some.
    expect(outcomes.has('rotated')).toBe(true);
    expect(outcomes.size).toBeGreaterThan(1);
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
