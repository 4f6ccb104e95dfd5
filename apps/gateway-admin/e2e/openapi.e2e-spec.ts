import { bootService, checkAnswer, OpenApiJson, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';
import { AdminHarness, Reply, startAdmin } from './admin-harness';

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
});

/**
 * The answers of the admin routes the document describes, each one real and checked against its
 * schema (`checkAnswer`): a route without a schema for the status it answered fails as undocumented.
 */
describe('gateway admin OpenAPI answers', () => {
  let h: AdminHarness;
  let doc: OpenApiJson;
  const expectDocumented = (method: string, template: string, reply: Reply, status: number) => {
    expect({ status: reply.status, text: reply.status === status ? '' : reply.text }).toEqual({ status, text: '' });
    expect(checkAnswer(doc, method, template, reply.status, reply.body)).toEqual({ route: `${method} ${template} ${status}`, documented: true, departures: [] });
  };

  beforeAll(async () => {
    h = await startAdmin();
    doc = (await (await fetch(`${h.url}/docs/json`)).json()) as OpenApiJson;
  });
  afterAll(() => h.stop());

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
});
