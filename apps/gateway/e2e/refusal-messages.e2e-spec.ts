import { createOrg, expectGovernanceDenial, GatewayHarness, Json, postJson, PROVIDER_KEY, setPolicy, startGateway } from './harness';

/**
 * What a refused or held request says, through the real HTTP surface: a D catch-all call that names
 * no model under a model allowlist, and amounts below a cent in the approval and budget messages.
 */
describe('refusal and approval messages', () => {
  let gw: GatewayHarness;
  const auth = (key: string) => ({ 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY });
  const chat = (content: string) => ({ model: 'gpt-4o', messages: [{ role: 'user', content }], max_tokens: 20 });

  async function get(path: string, key: string): Promise<{ status: number; headers: Headers; body: Json }> {
    const res = await fetch(`${gw.url}${path}`, { headers: auth(key) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  }

  beforeAll(async () => {
    gw = await startGateway({ plan: 'growth' });
  });
  afterAll(() => gw.stop());

  it('a D catch-all call without a model is refused under an allowlist, saying it names no model and what to add', async () => {
    const org = await createOrg(gw, 'growth');
    await setPolicy(gw, org.orgId, { allowed_models: ['gpt-4o'] });
    const refused = await get('/v1/mistral/files/abc', org.key);
    expectGovernanceDenial(refused, { status: 403, type: 'permission_error', code: 'model_not_allowed', gatewayCode: 'GW_MODEL_001', orgId: org.orgId });
    expect(refused.body.error.message).toBe(
      "This call names no model the gateway can read (no JSON body with a model field), so it is checked as provider mistral, which is not in the organization's allowed models (gpt-4o).",
    );
    expect(refused.body.error.remediation).toBe('Add mistral/* (or the mistral models this call uses) to allowed_models, or send a JSON body with model.');
    expect(gw.mock.requests.filter((r) => r.path.includes('/files/'))).toHaveLength(0);

    // A JSON body naming a model outside the list keeps the usual message.
    const named = await postJson(`${gw.url}/v1/mistral/agents/completions`, { model: 'mistral-large-latest', messages: [{ role: 'user', content: 'x' }] }, auth(org.key));
    expect(named.status).toBe(403);
    expect(named.body.error.message).toBe("The model mistral-large-latest is not in the organization's allowed models (gpt-4o).");

    // What the message says to do lets the call through.
    await setPolicy(gw, org.orgId, { allowed_models: ['gpt-4o', 'mistral/*'] });
    expect((await get('/v1/mistral/files/abc', org.key)).status).toBe(200);
    expect(gw.mock.requests.filter((r) => r.path.includes('/files/')).map((r) => r.path)).toEqual(['/v1/files/abc']);
  });

  it('amounts below a cent keep their significant digits in the approval and budget messages; the JSON numbers and headers do not change', async () => {
    const org = await createOrg(gw, 'growth');
    await setPolicy(gw, org.orgId, { hitl_cost_threshold: 0.0000001 });
    const held = await postJson(`${gw.url}/v1/chat/completions`, chat('held for approval'), auth(org.key));
    expect(held.status).toBe(202);
    expect(held.body.message).toMatch(/^The estimated cost of \$0\.000\d+ is above the approval threshold of \$0\.0000001\. /);
    expect(typeof held.body.estimated_cost).toBe('number');

    await setPolicy(gw, org.orgId, { max_cost_per_request: 0.00000025 });
    const capped = await postJson(`${gw.url}/v1/chat/completions`, chat('capped'), auth(org.key));
    expectGovernanceDenial(capped, { status: 403, type: 'permission_error', code: 'cost_limit', gatewayCode: 'GW_COST_001', orgId: org.orgId });
    expect(capped.body.error.message).toMatch(/ exceeds the per-request limit of \$0\.00000025\.$/);

    await setPolicy(gw, org.orgId, { daily_budget: 0.0000001 });
    const budget = await postJson(`${gw.url}/v1/chat/completions`, chat('over budget'), auth(org.key));
    expectGovernanceDenial(budget, { status: 403, type: 'permission_error', code: 'daily_budget', gatewayCode: 'GW_COST_002', orgId: org.orgId });
    expect(budget.body.error.message).toMatch(/^Daily budget of \$0\.0000001 would be exceeded: \$0\.00 spent today/);
    expect(budget.headers.get('x-svc-daily-budget')).toBe('0.0000001');
  });
});
