import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { ApprovalRepository, NewApproval } from './approval.repository';

const DAY = 24 * 3600_000;
const input = (extra: Partial<NewApproval> = {}): NewApproval => ({
  model: 'gpt-4o',
  estimated_cost: 12.5,
  hitl_threshold: 10,
  retry_after_seconds: 30,
  request_hash: 'hash-1',
  request_id: 'gw_1',
  ttl_ms: DAY,
  ...extra,
});

describe.each(storeTargets(process.env.MONGODB_URI))('ApprovalRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new ApprovalRepository(store));
  const t0 = new Date('2030-01-01T00:00:00Z');
  const later = (ms: number) => new Date(t0.getTime() + ms);

  it('creates a pending approval that expires after its TTL', async () => {
    const created = await t.repo.create(ORG_A, input(), t0);
    expect(created).toMatchObject({ status: 'pending', org_id: ORG_A, model: 'gpt-4o', estimated_cost: 12.5, approved_by: null, consumed_at: null });
    expect(created._id).toMatch(/^apr_/);
    expect(created.expires_at).toEqual(later(DAY));
    expect(await t.repo.findById(ORG_A, created._id, later(DAY - 1))).toMatchObject({ status: 'pending' });
    expect(await t.repo.findById(ORG_A, created._id, later(DAY))).toMatchObject({ status: 'expired' });
  });

  it('approves once, then consumes once with the matching body hash', async () => {
    const created = await t.repo.create(ORG_A, input(), t0);
    const approved = await t.repo.approve(ORG_A, created._id, 'usr_reviewer', later(1000));
    expect(approved).toMatchObject({ status: 'approved', approved_by: 'usr_reviewer', approved_at: later(1000) });
    expect(await t.repo.approve(ORG_A, created._id, 'usr_other', later(2000))).toBeNull();
    expect(await t.repo.reject(ORG_A, created._id, 'usr_other', 'no', later(2000))).toBeNull();
    expect(await t.repo.consume(ORG_A, created._id, 'other-hash', 'gw_2', later(3000))).toBeNull();
    expect(await t.repo.consume(ORG_A, created._id, 'hash-1', 'gw_2', later(3000))).toMatchObject({ consumed_at: later(3000), consumed_by: 'gw_2' });
    expect(await t.repo.consume(ORG_A, created._id, 'hash-1', 'gw_3', later(4000))).toBeNull();
  });

  it('releases a consumed approval only for the request that consumed it, once; then it is consumed once again', async () => {
    const created = await t.repo.create(ORG_A, input(), t0);
    await t.repo.approve(ORG_A, created._id, 'usr_reviewer', later(1000));
    expect(await t.repo.release(ORG_A, created._id, 'gw_2', later(1500))).toBeNull(); // not consumed yet
    await t.repo.consume(ORG_A, created._id, 'hash-1', 'gw_2', later(2000));
    expect(await t.repo.release(ORG_A, created._id, 'gw_other', later(3000))).toBeNull();
    expect(await t.repo.findById(ORG_A, created._id, later(3000))).toMatchObject({ consumed_at: later(2000), consumed_by: 'gw_2' });
    expect(await t.repo.release(ORG_A, created._id, 'gw_2', later(3000))).toMatchObject({ status: 'approved', consumed_at: null, consumed_by: null, released_at: later(3000) });
    expect(await t.repo.release(ORG_A, created._id, 'gw_2', later(3500))).toBeNull();
    expect(await t.repo.consume(ORG_A, created._id, 'hash-1', 'gw_3', later(4000))).toMatchObject({ consumed_at: later(4000), consumed_by: 'gw_3' });
    // A late release by the first request frees nothing: the approval is gw_3's now.
    expect(await t.repo.release(ORG_A, created._id, 'gw_2', later(5000))).toBeNull();
    expect(await t.repo.consume(ORG_A, created._id, 'hash-1', 'gw_4', later(5000))).toBeNull();
    expect(await t.repo.findById(ORG_A, created._id, later(5000))).toMatchObject({ status: 'approved', consumed_at: later(4000), consumed_by: 'gw_3' });
  });

  it('of concurrent consumers exactly one wins, and after its release exactly one of the next', async () => {
    const created = await t.repo.create(ORG_A, input(), t0);
    await t.repo.approve(ORG_A, created._id, 'usr_reviewer', later(1));
    const first = await Promise.all(['gw_a', 'gw_b', 'gw_c', 'gw_d'].map((id) => t.repo.consume(ORG_A, created._id, 'hash-1', id, later(2))));
    const winners = first.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const holder = winners[0]?.consumed_by as string;
    const releases = await Promise.all(['gw_a', 'gw_b', 'gw_c', 'gw_d'].map((id) => t.repo.release(ORG_A, created._id, id, later(3))));
    expect(releases.filter((r) => r !== null).map((r) => r?.released_at)).toEqual([later(3)]);
    const second = await Promise.all(['gw_e', 'gw_f', 'gw_g'].map((id) => t.repo.consume(ORG_A, created._id, 'hash-1', id, later(4))));
    expect(second.filter((r) => r !== null)).toHaveLength(1);
    expect(holder).toMatch(/^gw_[a-d]$/);
  });

  it('a released approval expires at its expires_at; an approved one never consumed keeps its approval', async () => {
    const released = await t.repo.create(ORG_A, input(), t0);
    await t.repo.approve(ORG_A, released._id, 'usr_r', later(1));
    await t.repo.consume(ORG_A, released._id, 'hash-1', 'gw_2', later(2));
    expect(await t.repo.release(ORG_A, released._id, 'gw_2', later(DAY - 10))).toMatchObject({ status: 'approved', consumed_at: null });
    expect(await t.repo.consume(ORG_A, released._id, 'hash-1', 'gw_3', later(DAY))).toBeNull();
    expect(await t.repo.findById(ORG_A, released._id, later(DAY))).toMatchObject({ status: 'expired', consumed_at: null });

    // Released after its expiry: expired at once.
    const late = await t.repo.create(ORG_A, input({ request_hash: 'hash-2' }), t0);
    await t.repo.approve(ORG_A, late._id, 'usr_r', later(1));
    await t.repo.consume(ORG_A, late._id, 'hash-2', 'gw_4', later(DAY - 1));
    expect(await t.repo.release(ORG_A, late._id, 'gw_4', later(DAY + 1))).toMatchObject({ status: 'expired', consumed_at: null, consumed_by: null });

    // The sweep expires a released one too, but neither a consumed nor a never-consumed approved one.
    const swept = await t.repo.create(ORG_B, input(), t0);
    const consumed = await t.repo.create(ORG_B, input({ request_hash: 'hash-3' }), t0);
    const unused = await t.repo.create(ORG_B, input({ request_hash: 'hash-4' }), t0);
    for (const a of [swept, consumed, unused]) await t.repo.approve(ORG_B, a._id, 'usr_r', later(1));
    await t.repo.consume(ORG_B, swept._id, 'hash-1', 'gw_5', later(2));
    await t.repo.release(ORG_B, swept._id, 'gw_5', later(3));
    await t.repo.consume(ORG_B, consumed._id, 'hash-3', 'gw_6', later(2));
    expect(await t.repo.expireOverdueAcrossOrgs(later(DAY + 5))).toBe(1);
    expect(await t.repo.stats(ORG_B, later(DAY + 5))).toMatchObject({ approved: 2, expired: 1 });
    expect(await t.repo.consume(ORG_B, unused._id, 'hash-4', 'gw_7', later(DAY + 5))).toMatchObject({ consumed_by: 'gw_7' });
  });

  it('consumes for a request the newest approved unused approval, ahead of a newer pending one; in flight until marked used or released', async () => {
    const approved = await t.repo.create(ORG_A, input(), t0);
    await t.repo.approve(ORG_A, approved._id, 'usr_r', later(1));
    const pending = await t.repo.create(ORG_A, input(), later(2));
    expect(await t.repo.consumeForRequest(ORG_A, 'gpt-4o', 'other-hash', 'gw_2', later(3))).toBeNull();
    expect(await t.repo.consumeForRequest(ORG_A, 'gpt-4o', 'hash-1', 'gw_2', later(3))).toMatchObject({ _id: approved._id, consumed_by: 'gw_2', used_at: null });
    expect(await t.repo.consumeForRequest(ORG_A, 'gpt-4o', 'hash-1', 'gw_3', later(4))).toBeNull();
    expect(await t.repo.findInFlight(ORG_A, 'gpt-4o', 'hash-1', later(3))).toMatchObject({ _id: approved._id });
    // The bound: consumed before `since` no longer counts as in flight.
    expect(await t.repo.findInFlight(ORG_A, 'gpt-4o', 'hash-1', later(4))).toBeNull();
    expect(await t.repo.markUsed(ORG_A, approved._id, 'gw_other', later(5))).toBeNull();
    expect(await t.repo.markUsed(ORG_A, approved._id, 'gw_2', later(5))).toMatchObject({ used_at: later(5), consumed_by: 'gw_2' });
    expect(await t.repo.markUsed(ORG_A, approved._id, 'gw_2', later(6))).toBeNull();
    expect(await t.repo.findInFlight(ORG_A, 'gpt-4o', 'hash-1', t0)).toBeNull();
    // Used for good: it can no longer be given back.
    expect(await t.repo.release(ORG_A, approved._id, 'gw_2', later(6))).toBeNull();
    expect(await t.repo.findById(ORG_A, approved._id, later(6))).toMatchObject({ status: 'approved', used_at: later(5), consumed_by: 'gw_2' });
    expect(await t.repo.findById(ORG_A, pending._id, later(6))).toMatchObject({ status: 'pending', consumed_at: null });
  });

  it('rejects with a reason; an expired approval can be neither approved nor rejected', async () => {
    const a = await t.repo.create(ORG_A, input(), t0);
    expect(await t.repo.reject(ORG_A, a._id, 'usr_r', 'too expensive', later(1))).toMatchObject({
      status: 'rejected',
      rejected_by: 'usr_r',
      rejection_reason: 'too expensive',
    });
    const b = await t.repo.create(ORG_A, input({ request_hash: 'hash-2' }), t0);
    expect(await t.repo.approve(ORG_A, b._id, 'usr_r', later(DAY + 1))).toBeNull();
    expect(await t.repo.consume(ORG_A, a._id, 'hash-1', 'gw_2', later(2))).toBeNull();
  });

  it('finds the latest approval for a re-submitted request', async () => {
    await t.repo.create(ORG_A, input(), t0);
    const newer = await t.repo.create(ORG_A, input(), later(1000));
    await t.repo.create(ORG_A, input({ model: 'other' }), later(2000));
    expect(await t.repo.findLatestForRequest(ORG_A, 'gpt-4o', 'hash-1')).toEqual(newer);
    expect(await t.repo.findLatestForRequest(ORG_A, 'gpt-4o', 'nope')).toBeNull();
  });

  it('lists by status, counts stats and expires overdue approvals', async () => {
    const a = await t.repo.create(ORG_A, input(), t0);
    await t.repo.create(ORG_A, input({ ttl_ms: 1000 }), t0);
    const c = await t.repo.create(ORG_A, input(), t0);
    await t.repo.approve(ORG_A, a._id, 'usr_r', later(10));
    await t.repo.reject(ORG_A, c._id, 'usr_r', null, later(10));
    expect(await t.repo.stats(ORG_A, later(5000))).toEqual({ pending: 0, approved: 1, rejected: 1, expired: 1 });
    const pending = await t.repo.listByStatus(ORG_A, 'pending', {}, later(5000));
    expect(pending.total).toBe(0);
    expect((await t.repo.listByStatus(ORG_A, undefined, {}, later(5000))).total).toBe(3);
  });

  it('expires overdue pending approvals of every organization in one sweep', async () => {
    await t.repo.create(ORG_A, input({ ttl_ms: 1000 }), t0);
    await t.repo.create(ORG_B, input({ ttl_ms: 1000 }), t0);
    await t.repo.create(ORG_B, input(), t0);
    expect(await t.repo.expireOverdueAcrossOrgs(later(2000))).toBe(2);
    expect(await t.repo.stats(ORG_B, later(2000))).toMatchObject({ pending: 1, expired: 1 });
  });

  it('isolates tenants', async () => {
    const created = await t.repo.create(ORG_A, input(), new Date());
    await expectTenantIsolation(t.repo, created, { status: 'approved' });
    expect(await t.repo.approve(ORG_B, created._id, 'usr_evil')).toBeNull();
    expect(await t.repo.reject(ORG_B, created._id, 'usr_evil', null)).toBeNull();
    expect(await t.repo.consume(ORG_B, created._id, 'hash-1', 'gw_2')).toBeNull();
    expect(await t.repo.release(ORG_B, created._id, 'gw_2')).toBeNull();
    expect(await t.repo.findLatestForRequest(ORG_B, 'gpt-4o', 'hash-1')).toBeNull();
    expect(await t.repo.stats(ORG_B)).toEqual({ pending: 0, approved: 0, rejected: 0, expired: 0 });
    expect(await t.repo.expireOverdue(ORG_B, later(10 * DAY))).toBe(0);
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
