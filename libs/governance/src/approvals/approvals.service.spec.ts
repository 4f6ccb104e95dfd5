import { ConflictError, GatewayError } from '@svc/platform';
import { createOrg, openTestRepositories, TestRepositories } from '../chain/governance.fixtures';
import { ApprovalsService } from './approvals.service';
import { canonicalJson, requestHash } from './request-hash';

describe('ApprovalsService', () => {
  let db: TestRepositories;
  let now: Date;
  let approvals: ApprovalsService;
  let orgId: string;
  const request = (hash = 'h1') => ({ model: 'gpt-4o', provider: 'openai', estimatedCost: 12.5, hitlThreshold: 10, requestHash: hash, requestId: 'gw_1', keyId: 'key_1' });

  beforeEach(async () => {
    db = await openTestRepositories();
    now = new Date('2025-05-01T10:00:00Z');
    approvals = new ApprovalsService(db.repositories.approvals, { ttlHours: 24, now: () => now });
    orgId = (await createOrg(db.repositories))._id;
  });
  afterEach(() => db.close());

  it('creates a pending approval that the polling route shows, scoped to its organization', async () => {
    const created = await approvals.request(orgId, request());
    expect(created._id).toMatch(/^apr_/);
    expect(await approvals.status(orgId, created._id)).toEqual({
      approval_id: created._id,
      status: 'pending',
      org_id: orgId,
      model: 'gpt-4o',
      estimated_cost: 12.5,
      retry_after_seconds: 30,
      created_at: '2025-05-01T10:00:00.000Z',
      expires_at: '2025-05-02T10:00:00.000Z',
    });
    const other = (await createOrg(db.repositories))._id;
    const error = await approvals.status(other, created._id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(404);
    expect((error as GatewayError).body).toMatchObject({ type: 'not_found_error', code: 'not_found', param: 'approval_id' });
  });

  it('approves once, recording who and when; a second decision is a 409', async () => {
    const created = await approvals.request(orgId, request());
    now = new Date('2025-05-01T11:00:00Z');
    const approved = await approvals.approve(orgId, created._id, 'usr_reviewer');
    expect(approved).toMatchObject({ status: 'approved', approved_by: 'usr_reviewer', approved_at: '2025-05-01T11:00:00.000Z' });
    expect(await approvals.status(orgId, created._id)).toMatchObject({ approved_by: 'usr_reviewer', approved_at: '2025-05-01T11:00:00.000Z' });
    const again = await approvals.reject(orgId, created._id, 'usr_other', 'too late').catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ConflictError);
    expect(again).toMatchObject({ code: 'invalid_state', extra: { status: 'approved' } });
  });

  it('rejects only with a reason', async () => {
    const created = await approvals.request(orgId, request());
    const missing = await approvals.reject(orgId, created._id, 'usr_reviewer', '  ').catch((e: unknown) => e);
    expect((missing as GatewayError).status).toBe(400);
    expect((missing as GatewayError).body.param).toBe('reason');
    const rejected = await approvals.reject(orgId, created._id, 'usr_reviewer', 'Use a cheaper model');
    expect(rejected).toMatchObject({ status: 'rejected', rejected_by: 'usr_reviewer', rejection_reason: 'Use a cheaper model' });
  });

  it('is consumed once, and only by the same body', async () => {
    const created = await approvals.request(orgId, request('hash_a'));
    await approvals.approve(orgId, created._id, 'usr_reviewer');
    expect(await approvals.consume(orgId, created._id, 'hash_b', 'gw_2')).toBeNull();
    expect(await approvals.consume(orgId, created._id, 'hash_a', 'gw_2')).toMatchObject({ _id: created._id });
    expect(await approvals.consume(orgId, created._id, 'hash_a', 'gw_3')).toBeNull();
  });

  it('expires after the TTL (sweep), and an expired approval can no longer be approved', async () => {
    const created = await approvals.request(orgId, request());
    now = new Date('2025-05-02T10:00:01Z');
    expect(await approvals.expireOverdue()).toBe(1);
    expect((await approvals.status(orgId, created._id)).status).toBe('expired');
    await expect(approvals.approve(orgId, created._id, 'usr_reviewer')).rejects.toMatchObject({ code: 'invalid_state' });
  });

  it('counts by status and lists the pending ones', async () => {
    const a = await approvals.request(orgId, request('a'));
    await approvals.request(orgId, request('b'));
    const c = await approvals.request(orgId, request('c'));
    await approvals.approve(orgId, a._id, 'usr_1');
    await approvals.reject(orgId, c._id, 'usr_1', 'no');
    expect(await approvals.stats(orgId)).toEqual({ pending: 1, approved: 1, rejected: 1, expired: 0, total: 3 });
    const pending = await approvals.listPending(orgId);
    expect(pending.total).toBe(1);
    expect(pending.items[0]).toMatchObject({ status: 'pending', request_hash: 'b' });
  });
});

describe('request hash', () => {
  it('ignores key order and whitespace but not values', () => {
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe('{"a":[1,{"c":3,"d":2}],"b":1}');
    expect(requestHash(JSON.parse('{"model":"x","messages":[]}'))).toBe(requestHash({ messages: [], model: 'x' }));
    expect(requestHash({ model: 'x', max_tokens: 1 })).not.toBe(requestHash({ model: 'x', max_tokens: 2 }));
    expect(requestHash({})).toMatch(/^[0-9a-f]{64}$/);
  });
});
