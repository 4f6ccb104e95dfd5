import { ApprovalEntity, asOrgId } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

describe('gateway admin: approvals (HITL)', () => {
  let h: AdminHarness;
  let pending: ApprovalEntity[];
  let expired: ApprovalEntity;
  let theirs: ApprovalEntity;

  const seed = (orgId: string, model: string, ttlMs = 3_600_000, keyId: string | null = null) =>
    h.repos.approvals.create(asOrgId(orgId), {
      model,
      provider: 'openai',
      estimated_cost: 12.345678,
      hitl_threshold: 10,
      retry_after_seconds: 30,
      request_hash: `hash-${model}`,
      request_id: `gw_req_${model}`,
      key_id: keyId,
      ttl_ms: ttlMs,
    });

  beforeAll(async () => {
    h = await startAdmin();
    pending = [];
    for (const model of ['gpt-4o', 'o3', 'claude-opus-4-1']) pending.push(await seed(h.org.id, model));
    expired = await seed(h.org.id, 'gpt-4.1', -1000);
    theirs = await seed(h.other.id, 'gpt-4o');
  });
  afterAll(() => h.stop());

  it('lists pending approvals newest first, paginated; overdue ones expire first', async () => {
    const res = await h.call('GET', '/gateway/admin/approvals');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, offset: 0, limit: 20 });
    expect(res.body.items.map((a: Json) => a.approval_id)).toEqual([...pending].reverse().map((a) => a._id));
    expect(res.body.items[0]).toMatchObject({ status: 'pending', org_id: h.org.id, model: 'claude-opus-4-1', estimated_cost: 12.345678, hitl_threshold: 10, request_id: 'gw_req_claude-opus-4-1' });
    const page = await h.call('GET', '/gateway/admin/approvals?limit=2&offset=2');
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 2 });
    expect(page.body.items.map((a: Json) => a.approval_id)).toEqual([pending[0]._id]);
    expect(gatewayError(await h.call('GET', '/gateway/admin/approvals?limit=0'), 400).param).toBe('limit');
    expect(gatewayError(await h.call('GET', '/gateway/admin/approvals?offset=x'), 400).param).toBe('offset');
  });

  it('counts approvals by status', async () => {
    const res = await h.call('GET', '/gateway/admin/approvals/stats');
    expect(res.body).toEqual({ pending: 3, approved: 0, rejected: 0, expired: 1, total: 4 });
  });

  it('shows full details; unknown and other organizations’ ids are 404 not_found with param approval_id', async () => {
    const res = await h.call('GET', `/gateway/admin/approvals/${pending[0]._id}`);
    expect(res.body).toMatchObject({ approval_id: pending[0]._id, status: 'pending', model: 'gpt-4o', provider: 'openai', request_hash: 'hash-gpt-4o', expires_at: expect.any(String) });
    for (const id of ['apr_unknown', theirs._id]) {
      for (const [method, path, body] of [
        ['GET', '', undefined],
        ['POST', '/approve', undefined],
        ['POST', '/reject', { reason: 'no' }],
      ] as const) {
        const error = gatewayError(await h.call(method, `/gateway/admin/approvals/${id}${path}`, { body }), 404, 'not_found');
        expect(error).toMatchObject({ type: 'not_found_error', param: 'approval_id' });
      }
    }
    expect((await h.repos.approvals.findById(asOrgId(h.other.id), theirs._id))?.status).toBe('pending');
  });

  it('approve records who and when; approving again is a 409', async () => {
    const res = await h.call('POST', `/gateway/admin/approvals/${pending[0]._id}/approve`, { token: h.token(h.org.id, 'Admin') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'approved', approved_by: h.member(h.org.id, 'Admin') });
    expect(Math.abs(Date.parse(res.body.approved_at) - Date.now())).toBeLessThan(10_000);
    const again = await h.call('POST', `/gateway/admin/approvals/${pending[0]._id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state', status: 'approved', request_id: again.headers.get('x-svc-request-id') });
    const rejectApproved = await h.call('POST', `/gateway/admin/approvals/${pending[0]._id}/reject`, { body: { reason: 'late' } });
    expect(rejectApproved.status).toBe(409);

    // With the JSON content type and an empty body, as some clients send every POST.
    const byKey = await h.call('POST', `/gateway/admin/approvals/${pending[1]._id}/approve`, { rawBody: '' });
    expect(byKey.status).toBe(200);
    expect(byKey.body.approved_by).toBe(h.org.adminKey._id);
  });

  it.each([
    ['no body', {}],
    ['an empty JSON body', { rawBody: '' }],
    ['a blank reason', { body: { reason: '   ' } }],
    ['a null reason', { body: { reason: null } }],
    ['a reason that is not text', { body: { reason: 7 } }],
    ['a reason over 1000 characters', { body: { reason: 'r'.repeat(1001) } }],
    ['an unknown field', { body: { reason: 'ok', colour: 'red' } }],
  ])('reject with %s is a 400 and leaves the approval pending', async (what, options) => {
    const error = gatewayError(await h.call('POST', `/gateway/admin/approvals/${pending[2]._id}/reject`, options), 400, 'invalid_request');
    expect({ what, param: error.param }).toEqual({ what, param: what === 'an unknown field' ? 'colour' : 'reason' });
    expect((await h.repos.approvals.findById(asOrgId(h.org.id), pending[2]._id))?.status).toBe('pending');
  });

  it('reject needs a reason (400 without) and records it; an expired approval cannot be decided (409)', async () => {
    expect(gatewayError(await h.call('POST', `/gateway/admin/approvals/${pending[2]._id}/reject`), 400).param).toBe('reason');
    expect(gatewayError(await h.call('POST', `/gateway/admin/approvals/${pending[2]._id}/reject`, { body: { reason: '   ' } }), 400).param).toBe('reason');
    expect(gatewayError(await h.call('POST', `/gateway/admin/approvals/${pending[2]._id}/reject`, { body: { reason: 7 } }), 400).param).toBe('reason');
    const res = await h.call('POST', `/gateway/admin/approvals/${pending[2]._id}/reject`, { body: { reason: 'Use a cheaper model' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'rejected', rejection_reason: 'Use a cheaper model', rejected_by: h.org.adminKey._id, rejected_at: expect.any(String) });
    const late = await h.call('POST', `/gateway/admin/approvals/${expired._id}/approve`);
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'invalid_state', status: 'expired' });
    expect((await h.call('GET', '/gateway/admin/approvals/stats')).body).toEqual({ pending: 0, approved: 2, rejected: 1, expired: 1, total: 4 });
  });

  it('the key that made a request cannot approve it (403 self_approval_not_allowed); another key, or a dashboard user, can', async () => {
    const own = await seed(h.org.id, 'gpt-4o-mini', 3_600_000, h.org.adminKey._id);
    const refused = gatewayError(await h.call('POST', `/gateway/admin/approvals/${own._id}/approve`), 403, 'self_approval_not_allowed');
    expect(refused.type).toBe('permission_error');
    expect((await h.repos.approvals.findById(asOrgId(h.org.id), own._id))?.status).toBe('pending');
    const reviewer = (await h.newKey(h.org.id, ['admin:write'])).plaintext;
    const approved = await h.call('POST', `/gateway/admin/approvals/${own._id}/approve`, { key: reviewer });
    expect(approved.status).toBe(200);
    const another = await seed(h.org.id, 'gpt-4.1-mini', 3_600_000, h.org.adminKey._id);
    expect((await h.call('POST', `/gateway/admin/approvals/${another._id}/approve`, { token: h.token(h.org.id, 'Admin') })).status).toBe(200);
    // Nor a key that replaced it by rotation, one or two rotations on (the old key rotates itself).
    const rotating = await h.newKey(h.org.id, ['admin:write'], { name: 'rotating-reviewer' });
    const held = await seed(h.org.id, 'gpt-4o', 3_600_000, rotating.key._id);
    const first = await h.call('POST', `/gateway/admin/keys/${rotating.key._id}/rotate`, { key: rotating.plaintext });
    const second = await h.call('POST', `/gateway/admin/keys/${first.body.id}/rotate`, { key: first.body.key });
    expect([first.status, second.status]).toEqual([200, 200]);
    for (const successor of [first.body.key, second.body.key]) {
      gatewayError(await h.call('POST', `/gateway/admin/approvals/${held._id}/approve`, { key: successor }), 403, 'self_approval_not_allowed');
    }
    expect((await h.repos.approvals.findById(asOrgId(h.org.id), held._id))?.status).toBe('pending');
    expect((await h.call('POST', `/gateway/admin/approvals/${held._id}/approve`, { key: reviewer })).status).toBe(200);
    // Withdrawing one's own request stays possible.
    const withdrawn = await seed(h.org.id, 'o4-mini', 3_600_000, h.org.adminKey._id);
    expect((await h.call('POST', `/gateway/admin/approvals/${withdrawn._id}/reject`, { body: { reason: 'not needed' } })).status).toBe(200);
  });

  it('needs admin:read to read and admin:write to decide', async () => {
    const fresh = await seed(h.org.id, 'gpt-5');
    const reader = (await h.newKey(h.org.id, ['admin:read'])).plaintext;
    expect((await h.call('GET', '/gateway/admin/approvals', { key: reader })).status).toBe(200);
    gatewayError(await h.call('GET', '/gateway/admin/approvals/stats', { key: (await h.newKey(h.org.id, ['billing:read'])).plaintext }), 403, 'insufficient_scope');
    gatewayError(await h.call('POST', `/gateway/admin/approvals/${fresh._id}/approve`, { key: reader }), 403, 'insufficient_scope');
    gatewayError(await h.call('POST', `/gateway/admin/approvals/${fresh._id}/approve`, { token: h.token(h.org.id, 'Operator') }), 403, 'insufficient_scope');
    gatewayError(await h.call('POST', `/gateway/admin/approvals/${fresh._id}/reject`, { token: h.token(h.org.id, 'Member'), body: { reason: 'x' } }), 403, 'insufficient_scope');
    expect((await h.repos.approvals.findById(asOrgId(h.org.id), fresh._id))?.status).toBe('pending');
  });

  it.each([
    ['an unknown field', { foo: 1 }, 'foo'],
    ['an array', [1], 'body'],
    ['an empty array', [], 'body'],
    ['a number', 5, 'body'],
    ['a string', 'yes', 'body'],
  ])('approve with %s in the body (%j) is a 400 naming %s and leaves the approval pending', async (_what, body, param) => {
    const fresh = await seed(h.org.id, `body-${param}-${JSON.stringify(body)}`);
    const error = gatewayError(await h.call('POST', `/gateway/admin/approvals/${fresh._id}/approve`, { body }), 400, 'invalid_request');
    expect(error).toMatchObject({ type: 'invalid_request_error', param });
    expect((await h.repos.approvals.findById(asOrgId(h.org.id), fresh._id))?.status).toBe('pending');
  });

  it('approve takes an empty object or null as no body', async () => {
    for (const body of [{}, null]) {
      const fresh = await seed(h.org.id, `empty-${JSON.stringify(body)}`);
      const res = await h.call('POST', `/gateway/admin/approvals/${fresh._id}/approve`, { body });
      expect({ status: res.status, state: res.body.status }).toEqual({ status: 200, state: 'approved' });
    }
  });
});
