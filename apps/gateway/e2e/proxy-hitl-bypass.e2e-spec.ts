import { createKey, createOrg, expectGovernanceDenial, expectGovernanceHeaders, GatewayHarness, Json, postJson, PROVIDER_KEY, setPolicy, startGateway } from './harness';

/**
 * `X-SVC-HITL-Bypass: true` (stage 1.5 and stage 6): an enterprise key with admin:write skips the
 * approval gate; the header alone, or on a plan without the feature, does not.
 */
describe('HITL bypass header through the proxy', () => {
  let gw: GatewayHarness;
  /** gpt-4o with 1,000 max output tokens: an estimate of about $0.01, over the threshold below. */
  const costly = (content: string) => ({ model: 'gpt-4o', messages: [{ role: 'user', content }], max_tokens: 1000 });
  const send = (key: string, content: string, headers: Record<string, string> = {}) =>
    postJson(`${gw.url}/v1/chat/completions`, costly(content), { 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY, ...headers });
  const bypass = { 'X-SVC-HITL-Bypass': 'true' };
  const upstreamSaw = (content: string) => gw.mock.requests.filter((r) => JSON.stringify(r.body ?? '').includes(content)).length;

  function pendingApproval(res: { status: number; headers: Headers; body: Json }, orgId: string): void {
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'pending_approval', model: 'gpt-4o' });
    expect(res.body.approval_id).toEqual(expect.any(String));
    expect(res.headers.get('x-svc-approval-id')).toBe(res.body.approval_id);
    expect(Number.isInteger(res.body.retry_after_seconds)).toBe(true);
    expect(res.headers.get('retry-after')).toBe(String(res.body.retry_after_seconds));
    expect(res.body.estimated_cost).toBeGreaterThan(0.001);
    expectGovernanceHeaders(res.headers, orgId);
  }

  beforeAll(async () => {
    gw = await startGateway({ plan: 'enterprise' });
    await setPolicy(gw, gw.orgId, { hitl_cost_threshold: 0.001 });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('enterprise, key with admin:write: without the header the request waits for approval (202)', async () => {
    const admin = await createKey(gw, { scopes: ['gateway:write', 'admin:write'] });
    pendingApproval(await send(admin.key, 'no header'), gw.orgId);
    pendingApproval(await send(admin.key, 'header false', { 'X-SVC-HITL-Bypass': 'false' }), gw.orgId);
    expect(gw.mock.requests).toHaveLength(0);
    // Under the threshold nothing waits: the estimate is what triggers the gate.
    const cheap = await postJson(`${gw.url}/v1/chat/completions`, { ...costly('cheap'), max_tokens: 10 }, { 'X-SVC-API-Key': admin.key, 'X-Provider-Key': PROVIDER_KEY });
    expect(cheap.status).toBe(200);
  });

  it('enterprise, key with admin:write, X-SVC-HITL-Bypass: true: the request over the threshold goes through (200)', async () => {
    const admin = await createKey(gw, { scopes: ['gateway:write', 'admin:write'] });
    const res = await send(admin.key, 'bypass the gate', bypass);
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe('mock reply to: bypass the gate');
    expect(res.headers.get('x-svc-approval-id')).toBeNull();
    expect(Number(res.headers.get('x-svc-cost'))).toBeGreaterThan(0.001);
    expect(upstreamSaw('bypass the gate')).toBe(1);
  });

  it('enterprise, key without admin:write: the header alone does not bypass (202)', async () => {
    pendingApproval(await send(gw.key, 'bypass without admin', bypass), gw.orgId);
    expect(upstreamSaw('bypass without admin')).toBe(0);
  });

  it('growth: 403 feature_not_on_plan (GW_PLAN_004) with the header, even with admin:write; without it 202', async () => {
    const growth = await createOrg(gw, 'growth');
    await setPolicy(gw, growth.orgId, { hitl_cost_threshold: 0.001 });
    const admin = await createKey(gw, { orgId: growth.orgId, scopes: ['gateway:write', 'admin:write'] });
    const refused = await send(admin.key, 'bypass on growth', bypass);
    expectGovernanceDenial(refused, { status: 403, type: 'permission_error', code: 'feature_not_on_plan', gatewayCode: 'GW_PLAN_004', orgId: growth.orgId });
    expect(refused.body.error.message.toLowerCase()).toContain('bypass');
    pendingApproval(await send(admin.key, 'no bypass on growth'), growth.orgId);
    expect(gw.mock.requests).toHaveLength(0);
  });
});
