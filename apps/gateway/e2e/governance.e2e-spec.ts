import { ApprovalsService } from '@svc/governance';
import { clearOfMinuteEdge } from '@svc/testing';
import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, PolicyOverrides } from '@svc/domain';
import { expectGovernanceHeaders, GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway } from './harness';

/** Each stage's allow and deny paths through the real HTTP surface, with the headers of every answer. */
describe('governance chain through the proxy', () => {
  let gw: GatewayHarness;
  const url = () => `${gw.url}/v1/chat/completions`;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const chat = (content: string, extra: Json = {}) => ({ model: 'gpt-4o', messages: [{ role: 'user', content }], max_tokens: 20, ...extra });

  async function policy(overrides: PolicyOverrides | null): Promise<void> {
    if (overrides) await gw.repos.policies.replace(asOrgId(gw.orgId), overrides);
    else await gw.repos.policies.delete(asOrgId(gw.orgId));
    await gw.service.runtime.invalidation.publish('policy', gw.orgId);
  }

  /** `type` follows from the status (SPEC.md "Gateway error format"; DECISIONS.md: every GW-only row is a permission_error). */
  function expectDenial(res: { status: number; headers: Headers; body: Json }, status: number, code: string, gatewayCode: string) {
    const type = status === 403 ? 'permission_error' : code === 'rate_limit' ? 'rate_limit_error' : 'insufficient_quota';
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ type, code, gateway_error_code: gatewayCode });
    expect(typeof res.body.error.remediation).toBe('string');
    expectGovernanceHeaders(res.headers);
  }

  beforeAll(async () => {
    gw = await startGateway({ plan: 'growth', env: { PLAN_DAILY_QUOTAS: 'free=2' } });
  });
  afterAll(() => gw.stop());
  afterEach(() => policy(null));

  it('stage 1: 429 rate_limit past rpm_limit, with Retry-After and rate-limit headers on every answer', async () => {
    await policy({ rpm_limit: 2 });
    await clearOfMinuteEdge();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await postJson(url(), chat(`rpm ${i}`), auth()));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[0].headers.get('x-ratelimit-limit')).toBe('2');
    expect(answers[1].headers.get('x-ratelimit-remaining')).toBe('0');
    const denied = answers[2];
    expectDenial(denied, 429, 'rate_limit', 'GW_RATE_001');
    expect(denied.body.error.message).toBe('Rate limit exceeded: 3/2 requests per minute');
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('stage 2: 403 cost_limit above the per-request cap, 403 daily_budget past the daily budget', async () => {
    await policy({ max_cost_per_request: 0.000001 });
    expectDenial(await postJson(url(), chat('cap'), auth()), 403, 'cost_limit', 'GW_COST_001');
    await policy({ daily_budget: 0.000001 });
    const res = await postJson(url(), chat('budget'), auth());
    expectDenial(res, 403, 'daily_budget', 'GW_COST_002');
    expect(res.headers.get('x-svc-daily-budget')).toBe('0.000001');
  });

  it('stage 4: 403 pii_detected naming the type and field, never the value', async () => {
    const res = await postJson(url(), chat('my ssn is 123-45-6789, file my taxes'), auth());
    expectDenial(res, 403, 'pii_detected', 'GW_PII_001');
    expect(res.body.error.message).toMatch(/ssn/i);
    expect(res.body.error.message).toContain('messages[0].content');
    expect(JSON.stringify(res.body)).not.toContain('123-45-6789');
    await policy({ pii_action: 'allow' });
    expect((await postJson(url(), chat('my ssn is 123-45-6789'), auth())).status).toBe(200);
  });

  it('stage 5: 403 model_not_allowed outside a non-empty allowlist (after alias resolution)', async () => {
    await policy({ allowed_models: ['gpt-4o'] });
    expect((await postJson(url(), chat('allowed'), auth())).status).toBe(200);
    expectDenial(await postJson(url(), chat('not allowed', { model: 'gpt-4o-mini' }), auth()), 403, 'model_not_allowed', 'GW_MODEL_001');
  });

  it('stage 6: 202 pending_approval, status polling, approval consumed once, rejection 403', async () => {
    await policy({ hitl_cost_threshold: 0.0000001 });
    const body = chat('an expensive request');
    const pending = await postJson(url(), body, auth());
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ status: 'pending_approval', model: 'gpt-4o' });
    expect(pending.body.approval_id).toMatch(/^apr_/);
    expect(typeof pending.body.estimated_cost).toBe('number');
    expect(pending.headers.get('x-svc-approval-id')).toBe(pending.body.approval_id);
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(gw.mock.requests.filter((r) => r.body && JSON.stringify(r.body).includes('an expensive request'))).toHaveLength(0);

    const status = await fetch(`${gw.url}/v1/approvals/${pending.body.approval_id}/status`, { headers: auth() });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ approval_id: pending.body.approval_id, status: 'pending', org_id: gw.orgId, model: 'gpt-4o' });
    const unknown = await fetch(`${gw.url}/v1/approvals/apr_unknown/status`, { headers: auth() });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Json).error).toMatchObject({ type: 'not_found_error', code: 'not_found', param: 'approval_id' });

    const approvals = gw.service.apps[0].get(ApprovalsService);
    await approvals.approve(gw.orgId, pending.body.approval_id, 'reviewer@example.com');
    expect((await postJson(url(), body, auth())).status).toBe(200);
    const again = await postJson(url(), body, auth());
    expect(again.status).toBe(202);
    expect(again.body.approval_id).not.toBe(pending.body.approval_id);

    await approvals.reject(gw.orgId, again.body.approval_id, 'reviewer@example.com', 'too expensive');
    expectDenial(await postJson(url(), body, auth()), 403, 'approval_rejected', 'GW_HITL_001');
  });

  it('stage 0: 403 subscription_inactive, and the free plan quota 429 plan_limit_exceeded', async () => {
    await gw.repos.organizations.update(asOrgId(gw.orgId), { subscription_status: 'canceled' });
    await gw.service.runtime.invalidation.publish('organization', gw.orgId);
    expectDenial(await postJson(url(), chat('canceled'), auth()), 403, 'subscription_inactive', 'GW_PLAN_001');

    await gw.repos.organizations.update(asOrgId(gw.orgId), { subscription_status: 'active' });
    await gw.service.runtime.invalidation.publish('organization', gw.orgId);

    // A fresh free organization: its daily quota is 2 (PLAN_DAILY_QUOTAS=free=2).
    const free = await gw.repos.organizations.create({ name: 'free-org', plan: 'free' });
    const freeKey = generateApiKey();
    await gw.repos.apiKeys.create(asOrgId(free._id), { name: 'free', key_hash: hashApiKey(freeKey), key_prefix: keyDisplayPrefix(freeKey), last_four: keyLastFour(freeKey), scopes: ['gateway:write'] });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await postJson(url(), chat(`quota ${i}`, { model: 'gpt-4o-mini' }), { 'X-SVC-API-Key': freeKey, 'X-Provider-Key': PROVIDER_KEY }));
    expect(answers.slice(0, 2).map((a) => a.status)).toEqual([200, 200]);
    expectDenial(answers[2], 429, 'plan_limit_exceeded', 'GW_PLAN_002');
  });
});
