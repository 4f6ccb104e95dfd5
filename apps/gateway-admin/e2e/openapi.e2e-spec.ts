import { asOrgId } from '@svc/domain';
import { PII_ACTIONS, POLICY_INPUT_FIELDS } from '@svc/governance';
import { bootService, checkAnswer, openApiOperations, OpenApiJson, requestSchema, resolveSchema, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';
import { AdminHarness, Reply, startAdmin } from './admin-harness';
import { MockProvider, startMockProvider } from './mock-provider';

/** Every SPEC.md "Gateway admin endpoints" row (plus the documented extensions), with the scope it needs. */
const ROUTES: [string, string, string][] = [
  ['get', '/gateway/admin/policies', 'admin:read'],
  ['post', '/gateway/admin/policies', 'admin:write'],
  ['delete', '/gateway/admin/policies/{org_id}', 'admin:write'],
  ['post', '/gateway/admin/policies/simulate', 'admin:read'],
  ['post', '/gateway/admin/policies/apply-preset', 'admin:write'],
  ['post', '/gateway/admin/keys/{key_id}/rotate', 'admin:write'],
  ['post', '/gateway/admin/secrets', 'admin:write'],
  ['get', '/gateway/admin/secrets', 'admin:read'],
  ['post', '/gateway/admin/secrets/rotate', 'admin:write'],
  ['delete', '/gateway/admin/secrets/{provider}', 'admin:write'],
  ['get', '/gateway/admin/usage', 'admin:read'],
  ['get', '/gateway/admin/usage/daily', 'admin:read'],
  ['get', '/gateway/admin/usage/{request_id}', 'admin:read'],
  ['get', '/gateway/admin/usage/export', 'billing:read'],
  ['get', '/gateway/admin/billing/summary', 'billing:read'],
  ['get', '/gateway/admin/billing/export', 'billing:read'],
  ['get', '/gateway/admin/latency', 'admin:read'],
  ['get', '/gateway/admin/approvals', 'admin:read'],
  ['get', '/gateway/admin/approvals/stats', 'admin:read'],
  ['get', '/gateway/admin/approvals/{id}', 'admin:read'],
  ['post', '/gateway/admin/approvals/{id}/approve', 'admin:write'],
  ['post', '/gateway/admin/approvals/{id}/reject', 'admin:write'],
  ['post', '/gateway/admin/provider-targets', 'admin:write'],
  ['get', '/gateway/admin/provider-targets', 'admin:read'],
  ['get', '/gateway/admin/provider-targets/{id}', 'admin:read'],
  ['patch', '/gateway/admin/provider-targets/{id}', 'admin:write'],
  ['delete', '/gateway/admin/provider-targets/{id}', 'admin:write'],
  ['post', '/gateway/admin/provider-targets/{id}/discover-models', 'admin:write'],
  ['get', '/gateway/admin/provider-targets/{id}/catalog', 'admin:read'],
  ['get', '/gateway/admin/discovery/catalog', 'admin:read'],
  ['get', '/gateway/admin/discovery/history', 'admin:read'],
  ['post', '/gateway/admin/model-aliases', 'admin:write'],
  ['get', '/gateway/admin/model-aliases', 'admin:read'],
  ['get', '/gateway/admin/model-aliases/{id}', 'admin:read'],
  ['patch', '/gateway/admin/model-aliases/{id}', 'admin:write'],
  ['delete', '/gateway/admin/model-aliases/{id}', 'admin:write'],
  ['post', '/gateway/admin/budgets/nodes', 'admin:write'],
  ['get', '/gateway/admin/budgets/nodes', 'admin:read'],
  ['get', '/gateway/admin/budgets/nodes/{id}', 'admin:read'],
  ['patch', '/gateway/admin/budgets/nodes/{id}', 'admin:write'],
  ['delete', '/gateway/admin/budgets/nodes/{id}', 'admin:write'],
  ['get', '/gateway/admin/rate-limits/status', 'admin:read'],
];

describe('gateway admin OpenAPI document', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await bootService(SERVICE);
  });
  afterAll(() => service.stop());

  it('documents every admin route with its scope first in the description', async () => {
    const doc = (await (await fetch(`${service.urls['gateway-admin']}/docs/json`)).json()) as { paths: Record<string, Record<string, { description?: string }>> };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/gateway/admin/'))
      .flatMap(([path, operations]) => Object.entries(operations).map(([method, op]) => [method, path, /^Scope: `([a-z:]+)`/.exec(op.description ?? '')?.[1] ?? 'none']));
    expect(documented.sort()).toEqual([...ROUTES].sort());
  });

  it('gives every answer with a body a content type, and every JSON answer a schema with its fields', async () => {
    const doc = (await (await fetch(`${service.urls['gateway-admin']}/docs/json`)).json()) as OpenApiJson;
    const answers = openApiOperations(doc).flatMap(({ path, method, operation }) =>
      Object.entries(operation.responses as Record<string, OpenApiJson>)
        .filter(([status]) => /^2\d\d$/.test(status) && status !== '204')
        .map(([status, response]) => ({ route: `${method} ${path} ${status}`, content: (response.content ?? {}) as Record<string, OpenApiJson> })),
    );
    expect(answers.length).toBeGreaterThanOrEqual(ROUTES.length - 5);
    const json = (content: Record<string, OpenApiJson>) => resolveSchema(doc, content['application/json']?.schema);
    const bare = answers.filter(({ content }) => Object.keys(content).length === 0 || ('application/json' in content && !json(content)?.properties));
    expect(bare.map(({ route }) => route)).toEqual([]);
  });

  it("documents a policy write's body field by field, every field the validation takes (PolicyFieldsDto)", async () => {
    const doc = (await (await fetch(`${service.urls['gateway-admin']}/docs/json`)).json()) as OpenApiJson;
    const body = resolveSchema(doc, requestSchema(doc.paths['/gateway/admin/policies'].post)) as OpenApiJson;
    const draftProperty = resolveSchema(doc, requestSchema(doc.paths['/gateway/admin/policies/simulate'].post))?.properties.draft_policy as OpenApiJson;
    const draft = resolveSchema(doc, draftProperty.allOf?.[0] ?? draftProperty) as OpenApiJson;
    for (const schema of [body, draft]) expect(Object.keys(schema.properties).sort()).toEqual([...POLICY_INPUT_FIELDS].sort());
    expect(body.properties).toMatchObject({ rpm_limit: { type: 'integer', minimum: 1 }, pii_action: { enum: [...PII_ACTIONS] }, max_reasoning_tokens: { nullable: true } });
  });
});

/**
 * The answers of the admin routes the document describes, each one real and checked against its
 * schema (`checkAnswer`): a route without a schema for the status it answered fails as undocumented.
 */
describe('gateway admin OpenAPI answers', () => {
  let h: AdminHarness;
  let doc: OpenApiJson;
  let mock: MockProvider;
  const expectDocumented = (method: string, template: string, reply: Reply, status: number) => {
    expect({ status: reply.status, text: reply.status === status ? '' : reply.text }).toEqual({ status, text: '' });
    expect(checkAnswer(doc, method, template, reply.status, reply.body)).toEqual({ route: `${method} ${template} ${status}`, documented: true, departures: [] });
  };
  /** A CSV download: its media type is documented for the status, and its header row is the one the schema names. */
  const expectDocumentedCsv = (template: string, reply: Reply) => {
    const content = doc.paths[template]?.get?.responses?.['200']?.content ?? {};
    const mediaType = reply.headers.get('content-type')?.split(';')[0] ?? '';
    expect({ template, status: reply.status, mediaType, documented: Object.keys(content) }).toEqual({ template, status: 200, mediaType: 'text/csv', documented: expect.arrayContaining(['text/csv']) });
    expect(content['text/csv'].schema.description).toContain(`\`${reply.text.split('\r\n')[0]}\``);
  };

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, models: ['llama3.1:8b', 'qwen2.5:7b'], validKeys: ['sk-target-openapi-0001'] });
    h = await startAdmin({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
    doc = (await (await fetch(`${h.url}/docs/json`)).json()) as OpenApiJson;
  });
  afterAll(async () => {
    await h.stop();
    await mock.close();
  });

  it('policies: the view (GET, POST 201 and 200, apply-preset) and a simulation with refusals by stage', async () => {
    expectDocumented('get', '/gateway/admin/policies', await h.call('GET', '/gateway/admin/policies'), 200);
    const created = await h.call('POST', '/gateway/admin/policies', { body: { rpm_limit: 50, allowed_models: ['gpt-4o-mini'], max_reasoning_tokens: 1000 } });
    expectDocumented('post', '/gateway/admin/policies', created, 201);
    expect(created.body.overridden_fields.length).toBeGreaterThan(0);
    expectDocumented('post', '/gateway/admin/policies', await h.call('POST', '/gateway/admin/policies', { body: { rpm_limit: 60 } }), 200);
    const preset = await h.call('POST', '/gateway/admin/policies/apply-preset', { body: { preset: 'starter' } });
    expectDocumented('post', '/gateway/admin/policies/apply-preset', preset, 200);
    expect(preset.body.preset).toBe('starter');

    const minute = Math.floor((Date.now() - 10 * 60_000) / 60_000) * 60_000;
    await h.seedUsage(h.org.id, Array.from({ length: 8 }, (_, i) => ({ created_at: new Date(minute + 1_000 + i * 100) })));
    const simulation = await h.call('POST', '/gateway/admin/policies/simulate', { body: { draft_policy: { rpm_limit: 5 } } });
    expectDocumented('post', '/gateway/admin/policies/simulate', simulation, 200);
    expect(simulation.body.blocked_by_stage.length).toBeGreaterThan(0);
    expect(simulation.body.newly_blocked.example_request_ids.length).toBeGreaterThan(0);
  });

  it('keys: a rotation answers the replacement with its plaintext once', async () => {
    const old = await h.newKey(h.org.id, ['admin:read']);
    const rotated = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate`);
    expectDocumented('post', '/gateway/admin/keys/{key_id}/rotate', rotated, 200);
    expect(rotated.body.previous_key_id).toBe(old.key._id);
  });

  it('secrets: store (201), list (non-empty) and rotate answer metadata only', async () => {
    expectDocumented('post', '/gateway/admin/secrets', await h.call('POST', '/gateway/admin/secrets', { body: { provider: 'openai', plaintext_key: 'sk-test-openapi-1234', label: 'main' } }), 201);
    const list = await h.call('GET', '/gateway/admin/secrets');
    expectDocumented('get', '/gateway/admin/secrets', list, 200);
    expect(list.body.items.length).toBeGreaterThan(0);
    const rotated = await h.call('POST', '/gateway/admin/secrets/rotate', { body: { provider: 'openai', plaintext_key: 'sk-test-openapi-5678' } });
    expectDocumented('post', '/gateway/admin/secrets/rotate', rotated, 200);
    expect(rotated.body.rotated_at).toEqual(expect.any(String));
  });

  it('usage: the records (non-empty page), the daily breakdown and one record with its replay data', async () => {
    const [record] = await h.seedUsage(h.org.id, [{ key_id: h.org.adminKey._id, session_id: 'session-1', created_at: new Date(Date.now() - 5_000) }]);
    const page = await h.call('GET', '/gateway/admin/usage?limit=5');
    expectDocumented('get', '/gateway/admin/usage', page, 200);
    expect(page.body.items.length).toBeGreaterThan(0);
    const daily = await h.call('GET', '/gateway/admin/usage/daily?days=3');
    expectDocumented('get', '/gateway/admin/usage/daily', daily, 200);
    expect(daily.body.items.length).toBe(3);
    const one = await h.call('GET', `/gateway/admin/usage/${record._id}`);
    expectDocumented('get', '/gateway/admin/usage/{request_id}', one, 200);
    expect(one.body.replay).toMatchObject({ body_bytes: 400 });
  });

  it('policies: a deletion answers the view it reverts to', async () => {
    await h.call('POST', '/gateway/admin/policies', { body: { rpm_limit: 70 } });
    const deleted = await h.call('DELETE', `/gateway/admin/policies/${h.org.id}`);
    expectDocumented('delete', '/gateway/admin/policies/{org_id}', deleted, 200);
    expect(deleted.body).toMatchObject({ deleted: true, has_custom_policy: false });
  });

  it('billing and latency: the summary, the JSON and CSV exports, the usage CSV and the percentiles (non-empty groups)', async () => {
    await h.seedUsage(h.org.id, [{ key_id: h.org.adminKey._id, agent: null }, { provider: 'anthropic', model: 'claude-sonnet-4-5', latency_ms: 300 }, { blocked_by: 'rate_limit', cost: 0 }]);
    const summary = await h.call('GET', '/gateway/admin/billing/summary');
    expectDocumented('get', '/gateway/admin/billing/summary', summary, 200);
    expect([summary.body.by_provider, summary.body.by_model, summary.body.by_key, summary.body.by_agent].map((group) => group.length > 0)).toEqual([true, true, true, true]);
    const exported = await h.call('GET', '/gateway/admin/billing/export');
    expectDocumented('get', '/gateway/admin/billing/export', exported, 200);
    expect(exported.body.lines.length).toBeGreaterThan(0);
    expectDocumentedCsv('/gateway/admin/billing/export', await h.call('GET', '/gateway/admin/billing/export?format=csv'));
    expectDocumentedCsv('/gateway/admin/usage/export', await h.call('GET', '/gateway/admin/usage/export'));
    const latency = await h.call('GET', '/gateway/admin/latency');
    expectDocumented('get', '/gateway/admin/latency', latency, 200);
    expect({ count: latency.body.overall.count > 0, providers: latency.body.by_provider.length, models: latency.body.by_model.length }).toEqual({ count: true, providers: 2, models: 2 });
  });

  it('approvals: the pending page (non-empty), the stats, one approval, an approval and a rejection', async () => {
    const seed = (model: string) =>
      h.repos.approvals.create(asOrgId(h.org.id), { model, provider: 'openai', estimated_cost: 12.5, hitl_threshold: 10, retry_after_seconds: 30, request_hash: `hash-${model}`, request_id: `gw_req_${model}`, key_id: null, ttl_ms: 3_600_000 });
    const [first, second] = [await seed('gpt-4o'), await seed('o3')];
    const page = await h.call('GET', '/gateway/admin/approvals');
    expectDocumented('get', '/gateway/admin/approvals', page, 200);
    expect(page.body.items.length).toBeGreaterThan(0);
    expectDocumented('get', '/gateway/admin/approvals/{id}', await h.call('GET', `/gateway/admin/approvals/${first._id}`), 200);
    const approved = await h.call('POST', `/gateway/admin/approvals/${first._id}/approve`);
    expectDocumented('post', '/gateway/admin/approvals/{id}/approve', approved, 200);
    expect(approved.body).toMatchObject({ status: 'approved', approved_by: expect.any(String) });
    const rejected = await h.call('POST', `/gateway/admin/approvals/${second._id}/reject`, { body: { reason: 'too costly' } });
    expectDocumented('post', '/gateway/admin/approvals/{id}/reject', rejected, 200);
    expect(rejected.body).toMatchObject({ status: 'rejected', rejection_reason: 'too costly' });
    const stats = await h.call('GET', '/gateway/admin/approvals/stats');
    expectDocumented('get', '/gateway/admin/approvals/stats', stats, 200);
    expect(stats.body).toMatchObject({ approved: 1, rejected: 1 });
  });

  it('provider targets and discovery: create (201), list, read, update, a discovery run, the catalogs and the history (non-empty)', async () => {
    const created = await h.call('POST', '/gateway/admin/provider-targets', { body: { name: 'Lab', provider_id: 'lab', base_url: `${mock.url}/v1`, api_key: 'sk-target-openapi-0001', headers: { 'x-team': 'ml' } } });
    expectDocumented('post', '/gateway/admin/provider-targets', created, 201);
    const id = created.body.id as string;
    const list = await h.call('GET', '/gateway/admin/provider-targets');
    expectDocumented('get', '/gateway/admin/provider-targets', list, 200);
    expect(list.body.items.length).toBeGreaterThan(0);
    expectDocumented('get', '/gateway/admin/provider-targets/{id}', await h.call('GET', `/gateway/admin/provider-targets/${id}`), 200);
    expectDocumented('patch', '/gateway/admin/provider-targets/{id}', await h.call('PATCH', `/gateway/admin/provider-targets/${id}`, { body: { models: ['hand-made'] } }), 200);
    const run = await h.call('POST', `/gateway/admin/provider-targets/${id}/discover-models`);
    expectDocumented('post', '/gateway/admin/provider-targets/{id}/discover-models', run, 200);
    expect(run.body.models).toEqual(['llama3.1:8b', 'qwen2.5:7b']);
    const catalog = await h.call('GET', `/gateway/admin/provider-targets/${id}/catalog`);
    expectDocumented('get', '/gateway/admin/provider-targets/{id}/catalog', catalog, 200);
    const all = await h.call('GET', '/gateway/admin/discovery/catalog?limit=1');
    expectDocumented('get', '/gateway/admin/discovery/catalog', all, 200);
    expect(all.body.next_cursor).toEqual(expect.any(String));
    const history = await h.call('GET', '/gateway/admin/discovery/history');
    expectDocumented('get', '/gateway/admin/discovery/history', history, 200);
    expect([catalog.body.items.length, all.body.items.length, history.body.items.length]).toEqual([2, 1, 1]);
  });

  it('model aliases and budget nodes: create (201), list (custom and built-in), read and update', async () => {
    const alias = await h.call('POST', '/gateway/admin/model-aliases', { body: { alias: 'fast', model: 'gpt-4o-mini', provider: 'openai' } });
    expectDocumented('post', '/gateway/admin/model-aliases', alias, 201);
    const aliases = await h.call('GET', '/gateway/admin/model-aliases');
    expectDocumented('get', '/gateway/admin/model-aliases', aliases, 200);
    expect([aliases.body.items.length > 0, aliases.body.builtin.length > 0]).toEqual([true, true]);
    expectDocumented('get', '/gateway/admin/model-aliases/{id}', await h.call('GET', `/gateway/admin/model-aliases/${alias.body.id}`), 200);
    expectDocumented('patch', '/gateway/admin/model-aliases/{id}', await h.call('PATCH', `/gateway/admin/model-aliases/${alias.body.id}`, { body: { description: null } }), 200);

    const node = await h.call('POST', '/gateway/admin/budgets/nodes', { body: { name: 'Company', level: 'org', budget_limit: 10, reset_period: 'daily' } });
    expectDocumented('post', '/gateway/admin/budgets/nodes', node, 201);
    const nodes = await h.call('GET', '/gateway/admin/budgets/nodes');
    expectDocumented('get', '/gateway/admin/budgets/nodes', nodes, 200);
    expect(nodes.body.items.length).toBeGreaterThan(0);
    expectDocumented('get', '/gateway/admin/budgets/nodes/{id}', await h.call('GET', `/gateway/admin/budgets/nodes/${node.body.id}`), 200);
    expectDocumented('patch', '/gateway/admin/budgets/nodes/{id}', await h.call('PATCH', `/gateway/admin/budgets/nodes/${node.body.id}`, { body: { alert_thresholds: [50, 90] } }), 200);
  });
});
