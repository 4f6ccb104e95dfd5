import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '@svc/domain';
import { callGateway, chat, ISO } from './hitl.helpers';
import { Json, PROVIDER_KEY, Reply, Standalone } from './standalone.helpers';

const OWNER = { email: 'hitl-owner@example.com', password: 'hitl-owner-password-1' };

/**
 * HITL approvals outside in (SPEC.md "Approval (HITL)", "States and transitions" > "Approval",
 * "Approval polling"; DECISIONS.md "Approval expiry", "Rejected approvals"): the 202 and its
 * headers, polling, the admin approve and reject routes, and the re-submission rules (bound to the
 * organization, the model and the body; used once; expiry), over real HTTP on the whole service.
 */
describe('HITL approvals and their re-submission', () => {
  let s: Standalone;
  /** The key that makes the requests, and a reviewer's key (a key cannot approve its own request). */
  let requester: string;
  let reviewer: string;

  const newKey = async (bearer: string, scopes: string[]) => {
    const res = await s.call('org-api', 'POST', '/api/v1/platform/api-keys', { bearer, body: { name: `k-${Math.random().toString(36).slice(2)}`, scopes } });
    expect(res.status).toBe(201);
    return res.body.key as string;
  };
  const gw = (method: string, path: string, key: string, body?: unknown): Promise<Reply> => callGateway(s, method, path, key, body);
  const send = (body: Json) => gw('POST', '/v1/chat/completions', requester, body);
  const poll = (id: string, key = requester) => gw('GET', `/v1/approvals/${id}/status`, key);
  const approve = (id: string) => gw('POST', `/gateway/admin/approvals/${id}/approve`, reviewer, {});
  const upstream = (marker: string) => s.mock.requests.filter((r) => JSON.stringify(r.body ?? '').includes(marker)).length;

  async function held(body: Json): Promise<string> {
    const pending = await send(body);
    expect(pending.status).toBe(202);
    return pending.body.approval_id as string;
  }

  beforeAll(async () => {
    s = await Standalone.boot(OWNER, 'enterprise');
    s.mock.configure({ record: true });
    requester = await newKey(s.token, ['gateway:write', 'gateway:read']);
    reviewer = await newKey(s.token, ['admin:read', 'admin:write']);
    expect((await s.call('gateway', 'POST', '/gateway/admin/policies', { body: { hitl_cost_threshold: 0.0000001 } })).status).toBeLessThan(300);
  });
  afterAll(() => s.stop());

  it('answers 202 with the SPEC body and headers; polling shows the fields, approved_by and approved_at once approved', async () => {
    const pending = await send(chat('the 202 shape'));
    expect(pending.status).toBe(202);
    expect(Object.keys(pending.body).sort()).toEqual(['approval_id', 'estimated_cost', 'message', 'model', 'retry_after_seconds', 'status']);
    expect(pending.body).toMatchObject({ status: 'pending_approval', model: 'gpt-4o-mini', approval_id: expect.stringMatching(/^apr_/), message: expect.any(String) });
    expect(Number.isInteger(pending.body.retry_after_seconds)).toBe(true);
    expect(pending.body.estimated_cost).toBeGreaterThan(0.0000001);
    expect(pending.headers.get('x-svc-approval-id')).toBe(pending.body.approval_id);
    expect(pending.headers.get('retry-after')).toBe(String(pending.body.retry_after_seconds));
    expect(pending.headers.get('x-gateway-org')).toBe(s.orgId);
    expect(upstream('the 202 shape')).toBe(0);

    const id = pending.body.approval_id as string;
    const polled = await poll(id);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ approval_id: id, status: 'pending', org_id: s.orgId, model: 'gpt-4o-mini', estimated_cost: pending.body.estimated_cost, retry_after_seconds: pending.body.retry_after_seconds, created_at: expect.stringMatching(ISO) });
    expect(polled.body).not.toHaveProperty('approved_by');

    expect((await approve(id)).status).toBe(200);
    const approved = await poll(id);
    expect(approved.body).toMatchObject({ status: 'approved', approved_by: expect.any(String), approved_at: expect.stringMatching(ISO) });
  });

  it('serves the re-submission after approval once and only once: of six at the same moment one reaches the provider, the others are told it is in use', async () => {
    const body = chat('six at once after approval');
    const id = await held(body);
    expect((await approve(id)).status).toBe(200);
    // Slow enough that the five others come while the one served is in flight.
    s.mock.setBehavior({ latencyMs: 400 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(body))).finally(() => s.mock.setBehavior(null));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(upstream('six at once after approval')).toBe(1);
    // Told to retry (never held under a new approval while the approved one is in use).
    for (const other of answers.filter((a) => a.status === 409)) {
      expect(other.body.error).toMatchObject({ type: 'invalid_request_error', code: 'approval_in_progress', gateway_error_code: 'GW_HITL_002' });
      expect(other.headers.get('x-svc-approval-id')).toBe(id);
      expect(other.headers.get('retry-after')).toBe('1');
    }
    const served = answers.find((a) => a.status === 200);
    const details = await gw('GET', `/gateway/admin/approvals/${id}`, reviewer);
    expect(details.body).toMatchObject({ status: 'approved', consumed_at: expect.stringMatching(ISO), consumed_by: served?.headers.get('x-svc-request-id'), used_at: expect.stringMatching(ISO), released_at: null });
    // Used by that answer: the same request now is held under a new approval.
    const again = await send(body);
    expect(again.status).toBe(202);
    expect(again.body.approval_id).not.toBe(id);
    expect(upstream('six at once after approval')).toBe(1);
  });

  it('an approval is bound to its body and model: another body (or model) is held under a new approval, and the approved one still serves its own body', async () => {
    const body = chat('bound to this body');
    const id = await held(body);
    expect((await approve(id)).status).toBe(200);
    const otherBody = await send(chat('bound to this body', { max_tokens: 11 }));
    const otherModel = await send({ ...body, model: 'gpt-4o' });
    for (const other of [otherBody, otherModel]) {
      expect(other.status).toBe(202);
      expect(other.body.approval_id).not.toBe(id);
    }
    expect(upstream('bound to this body')).toBe(0);
    // Key order and whitespace do not make another body.
    const reordered = await fetch(`${s.service.urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'X-SVC-API-Key': requester, 'X-Provider-Key': PROVIDER_KEY, 'content-type': 'application/json' },
      body: `{ "messages": ${JSON.stringify(body.messages)}, "max_tokens": 10,\n "model": "gpt-4o-mini" }`,
    });
    expect(reordered.status).toBe(200);
    expect(upstream('bound to this body')).toBe(1);
  });

  it('an expired approval polls as expired, cannot be decided (409 invalid_state), and the request is held under a new approval', async () => {
    const body = chat('left to expire');
    const id = await held(body);
    await s.service.runtime.repositories.approvals.updateById(asOrgId(s.orgId), id, { expires_at: new Date(Date.now() - 1000) });
    expect((await poll(id)).body).toMatchObject({ approval_id: id, status: 'expired' });
    const late = await approve(id);
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'invalid_state', status: 'expired' });
    const again = await send(body);
    expect(again.status).toBe(202);
    expect(again.body.approval_id).not.toBe(id);
    expect((await poll(again.body.approval_id)).body.status).toBe('pending');
    expect(upstream('left to expire')).toBe(0);
  });

  it('a rejected approval polls as rejected with its reason; re-submitting is 403 approval_rejected, never a new approval', async () => {
    const body = chat('to be rejected');
    const id = await held(body);
    const rejected = await gw('POST', `/gateway/admin/approvals/${id}/reject`, reviewer, { reason: 'too expensive' });
    expect(rejected.status).toBe(200);
    expect((await poll(id)).body).toMatchObject({ status: 'rejected', rejection_reason: 'too expensive' });
    for (let i = 0; i < 2; i++) {
      const refused = await send(body);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'approval_rejected', gateway_error_code: 'GW_HITL_001' });
      expect(refused.body.error.message).toContain(id);
    }
    expect((await approve(id)).body.error).toMatchObject({ code: 'invalid_state', status: 'rejected' });
    expect(upstream('to be rejected')).toBe(0);
  });

  it("polling another organization's approval is 404 not_found (param approval_id), as an unknown id", async () => {
    const id = await held(chat('not yours'));
    const org = await s.service.runtime.repositories.organizations.create({ name: 'Elsewhere', plan: 'enterprise' });
    const foreign = generateApiKey();
    await s.service.runtime.repositories.apiKeys.create(asOrgId(org._id), { name: 'elsewhere', key_hash: hashApiKey(foreign), key_prefix: keyDisplayPrefix(foreign), last_four: keyLastFour(foreign), scopes: ['gateway:write', 'gateway:read'] });
    for (const path of [id, 'apr_unknown']) {
      const res = await poll(path, foreign);
      expect({ status: res.status, error: res.body.error }).toMatchObject({ status: 404, error: { type: 'not_found_error', code: 'not_found', param: 'approval_id' } });
    }
    expect((await poll(id)).body.status).toBe('pending');
  });

  it('a streaming request is held as JSON 202 like any other; once approved, its re-submission streams, once', async () => {
    const body = chat('a held stream', { stream: true });
    const pending = await send(body);
    expect(pending.status).toBe(202);
    expect(pending.headers.get('content-type')).toMatch(/^application\/json/);
    expect(pending.body).toMatchObject({ status: 'pending_approval', approval_id: expect.stringMatching(/^apr_/) });
    expect((await approve(pending.body.approval_id)).status).toBe(200);
    const served = await send(body);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(served.body.text).toContain('data: [DONE]');
    expect((await send(body)).status).toBe(202);
    expect(upstream('a held stream')).toBe(1);
  });
});
