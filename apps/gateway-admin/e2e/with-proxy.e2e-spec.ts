import { UsageRecorder } from '@svc/proxy';
import { MockProvider, startMockProvider } from './mock-provider';
import { AdminHarness, gatewayError, GATEWAY_WITH_ADMIN, Json, startAdmin } from './admin-harness';

const PROVIDER_KEY = 'sk-mock-provider-key';

/** The admin API next to the real proxy in one app (as `npm start` runs them): changes apply on the next proxied request. */
describe('gateway admin with the proxy', () => {
  let h: AdminHarness;
  let mock: MockProvider;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0 });
    h = await startAdmin({ definition: GATEWAY_WITH_ADMIN, env: { OPENAI_BASE_URL: `${mock.url}/v1`, ANTHROPIC_BASE_URL: mock.url, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(async () => {
    await h.stop();
    await mock.close();
  });
  beforeEach(() => mock.reset());

  async function chat(model: string, key = h.org.admin, providerKey: string | null = PROVIDER_KEY): Promise<{ status: number; body: Json; requestId: string | null }> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-svc-api-key': key };
    if (providerKey) headers['x-provider-key'] = providerKey;
    const res = await fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 }) });
    return { status: res.status, body: (await res.json()) as Json, requestId: res.headers.get('x-svc-request-id') };
  }

  it('discovered models of a provider target appear in GET /v1/models and route through the proxy with its key', async () => {
    const created = await h.call('POST', '/gateway/admin/provider-targets', { body: { name: 'Lab', provider_id: 'lab', base_url: `${mock.url}/v1`, api_key: 'sk-lab-target' } });
    expect(created.status).toBe(201);
    const discovered = await h.call('POST', `/gateway/admin/provider-targets/${created.body.id}/discover-models`);
    expect(discovered.status).toBe(200);
    const model = (discovered.body.models as string[])[0];
    expect(model).toBeDefined();

    const models = (await (await fetch(`${h.url}/v1/models`, { headers: { 'x-svc-api-key': h.org.admin } })).json()) as Json;
    expect((models.data as Json[]).map((m) => m.id)).toContain(`lab/${model}`);
    const otherOrg = (await (await fetch(`${h.url}/v1/models`, { headers: { 'x-svc-api-key': h.other.admin } })).json()) as Json;
    expect((otherOrg.data as Json[]).map((m) => m.id)).not.toContain(`lab/${model}`);

    mock.reset();
    const answer = await chat(`lab/${model}`, h.org.admin, null);
    expect(answer.status).toBe(200);
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/chat/completions', model, headers: { authorization: 'Bearer sk-lab-target' } });
  });

  it('rate-limit status shows this minute’s live counts for the organization and each key', async () => {
    const second = await h.newKey(h.org.id, ['gateway:write'], { name: 'second' });
    for (let attempt = 0; attempt < 3; attempt++) {
      const minute = Math.floor(Date.now() / 60_000);
      const before = (await h.call('GET', '/gateway/admin/rate-limits/status')).body;
      for (let i = 0; i < 3; i++) expect((await chat('gpt-4o-mini')).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await chat('gpt-4o-mini', second.plaintext)).status).toBe(200);
      const status = await h.call('GET', '/gateway/admin/rate-limits/status');
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ org_id: h.org.id, rpm_limit: 300, current_minute_count: before.current_minute_count + 5 });
      const byKey = Object.fromEntries((status.body.keys as Json[]).map((k) => [k.key_id, k.requests_this_minute]));
      expect(byKey[second.key._id]).toBe(2);
      expect(byKey[h.org.adminKey._id]).toBeGreaterThanOrEqual(3);
      expect((await h.call('GET', '/gateway/admin/rate-limits/status', { key: h.other.admin })).body).toEqual({ org_id: h.other.id, rpm_limit: 300, current_minute_count: 0, keys: [] });
      gatewayError(await h.call('GET', '/gateway/admin/rate-limits/status', { key: second.plaintext }), 403, 'insufficient_scope');
      expect((await h.call('GET', '/gateway/admin/rate-limits/status', { token: h.token(h.org.id, 'Member'), headers: { 'x-org-id': h.org.id } })).status).toBe(200);
      return;
    }
    throw new Error('the minute turned on every attempt');
  });

  it('a policy change applies on the next proxied request, and deleting it reverts', async () => {
    expect((await chat('gpt-4o-mini')).status).toBe(200);
    await h.call('POST', '/gateway/admin/policies', { body: { allowed_models: ['gpt-4o'] } });
    const refused = await chat('gpt-4o-mini');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'model_not_allowed' });
    expect((await chat('gpt-4o')).status).toBe(200);
    await h.call('DELETE', `/gateway/admin/policies/${h.org.id}`);
    expect((await chat('gpt-4o-mini')).status).toBe(200);
  });

  it('a model alias is used on the next request after each change', async () => {
    const alias = (await h.call('POST', '/gateway/admin/model-aliases', { body: { alias: 'house-model', model: 'gpt-4o-mini' } })).body;
    expect((await chat('house-model')).status).toBe(200);
    expect(mock.requests.at(-1)?.model).toBe('gpt-4o-mini');
    await h.call('PATCH', `/gateway/admin/model-aliases/${alias.id}`, { body: { model: 'gpt-4.1-mini' } });
    await chat('house-model');
    expect(mock.requests.at(-1)?.model).toBe('gpt-4.1-mini');
    await h.call('DELETE', `/gateway/admin/model-aliases/${alias.id}`);
    await chat('house-model');
    expect(mock.requests.at(-1)?.model).toBe('house-model');
  });

  it('a stored provider key is used until it is deleted', async () => {
    expect((await chat('gpt-4o-mini', h.org.admin, null)).body.error).toMatchObject({ code: 'missing_provider_key' });
    await h.call('POST', '/gateway/admin/secrets', { body: { provider: 'openai', plaintext_key: 'sk-stored-org-key' } });
    expect((await chat('gpt-4o-mini', h.org.admin, null)).status).toBe(200);
    expect(mock.requests.at(-1)?.headers.authorization).toBe('Bearer sk-stored-org-key');
    await h.call('POST', '/gateway/admin/secrets/rotate', { body: { provider: 'openai', secret: 'sk-rotated-org-key' } });
    await chat('gpt-4o-mini', h.org.admin, null);
    expect(mock.requests.at(-1)?.headers.authorization).toBe('Bearer sk-rotated-org-key');
    await h.call('DELETE', '/gateway/admin/secrets/openai');
    expect((await chat('gpt-4o-mini', h.org.admin, null)).status).toBe(401);
  });

  it('a key rotated with no grace is refused by the proxy at once; the replacement works', async () => {
    const key = await h.newKey(h.org.id, ['gateway:write']);
    expect((await chat('gpt-4o-mini', key.plaintext)).status).toBe(200);
    const rotated = (await h.call('POST', `/gateway/admin/keys/${key.key._id}/rotate`, { body: { grace_period_hours: 0 } })).body;
    const refused = await chat('gpt-4o-mini', key.plaintext);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'key_rotated' });
    expect((await chat('gpt-4o-mini', rotated.key)).status).toBe(200);
  });

  it('a key’s budget node follows the key through rotation: the replacement is refused over the node limit (stage 2.5)', async () => {
    const key = await h.newKey(h.org.id, ['gateway:write']);
    const node = await h.call('POST', '/gateway/admin/budgets/nodes', { body: { name: 'tiny', level: 'key', key_id: key.key._id, budget_limit: 0.000001, reset_period: 'daily' } });
    expect(node.status).toBe(201);
    // The first request caches the governance profile: the rotation must invalidate it.
    const before = await chat('gpt-4o-mini', key.plaintext);
    expect(before.status).toBe(403);
    expect(before.body.error).toMatchObject({ code: 'budget_hierarchy_exceeded', gateway_error_code: 'GW_BUDGET_HIERARCHY_001' });

    const rotated = await h.call('POST', `/gateway/admin/keys/${key.key._id}/rotate`, { body: { grace_period_hours: 1 } });
    expect(rotated.status).toBe(200);
    const refused = await chat('gpt-4o-mini', rotated.body.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'budget_hierarchy_exceeded', gateway_error_code: 'GW_BUDGET_HIERARCHY_001' });
    expect(refused.body.error.message).toContain('"tiny"');
    expect((await h.call('GET', `/gateway/admin/budgets/nodes/${node.body.id}`)).body).toMatchObject({ key_id: rotated.body.id, budget_limit: 0.000001 });
    expect(mock.requests).toHaveLength(0);
  });

  it('a budget node created, or lowered, after its key spent starts from that spend: refused as soon as its view is over the limit', async () => {
    const key = await h.newKey(h.org.id, ['gateway:write']);
    // Spend already recorded for this key today, before any node counted it.
    await h.seedUsage(h.org.id, [{ key_id: key.key._id, cost: 0.004, created_at: new Date() }]);
    const node = await h.call('POST', '/gateway/admin/budgets/nodes', { body: { name: 'late cap', level: 'key', key_id: key.key._id, budget_limit: 0.003, reset_period: 'daily' } });
    expect(node.status).toBe(201);
    expect(node.body).toMatchObject({ current_spend: 0.004, remaining: 0 });
    const refused = await chat('gpt-4o-mini', key.plaintext);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'budget_hierarchy_exceeded', gateway_error_code: 'GW_BUDGET_HIERARCHY_001' });

    // A node with room is served; lowered below what was spent, it refuses (its counter did not exist yet).
    const other = await h.newKey(h.org.id, ['gateway:write']);
    await h.seedUsage(h.org.id, [{ key_id: other.key._id, cost: 0.004, created_at: new Date() }]);
    const roomy = await h.call('POST', '/gateway/admin/budgets/nodes', { body: { name: 'roomy', level: 'key', key_id: other.key._id, budget_limit: 5, reset_period: 'daily' } });
    expect(roomy.status).toBe(201);
    const lowered = await h.call('PATCH', `/gateway/admin/budgets/nodes/${roomy.body.id}`, { body: { budget_limit: 0.002 } });
    expect(lowered.body).toMatchObject({ budget_limit: 0.002, current_spend: 0.004 });
    expect((await chat('gpt-4o-mini', other.plaintext)).body.error).toMatchObject({ code: 'budget_hierarchy_exceeded' });
    expect(mock.requests).toHaveLength(0);
  });

  it('proxied requests show up in usage, billing and latency', async () => {
    const served = await chat('gpt-4o');
    await h.service.apps[0].get(UsageRecorder).flush();
    const record = await h.call('GET', `/gateway/admin/usage/${served.requestId}`);
    expect(record.body).toMatchObject({ request_id: served.requestId, provider: 'openai', model: 'gpt-4o', status_code: 200, key_id: h.org.adminKey._id });
    expect(record.body.cost).toBeGreaterThan(0);
    const summary = (await h.call('GET', '/gateway/admin/billing/summary')).body;
    expect(summary.by_model.find((m: Json) => m.model === 'gpt-4o').requests).toBeGreaterThan(0);
    expect((await h.call('GET', '/gateway/admin/latency')).body.by_model.some((m: Json) => m.model === 'gpt-4o')).toBe(true);
  });
});
