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
    expect(await t.repo.consume(ORG_A, created._id, 'other-hash', later(3000))).toBeNull();
    expect(await t.repo.consume(ORG_A, created._id, 'hash-1', later(3000))).toMatchObject({ consumed_at: later(3000) });
    expect(await t.repo.consume(ORG_A, created._id, 'hash-1', later(4000))).toBeNull();
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
    expect(await t.repo.consume(ORG_A, a._id, 'hash-1', later(2))).toBeNull();
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
    expect(await t.repo.consume(ORG_B, created._id, 'hash-1')).toBeNull();
    expect(await t.repo.findLatestForRequest(ORG_B, 'gpt-4o', 'hash-1')).toBeNull();
    expect(await t.repo.stats(ORG_B)).toEqual({ pending: 0, approved: 0, rejected: 0, expired: 0 });
    expect(await t.repo.expireOverdue(ORG_B, later(10 * DAY))).toBe(0);
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
