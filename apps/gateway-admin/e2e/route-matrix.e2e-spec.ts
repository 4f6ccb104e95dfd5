import { asOrgId } from '@svc/domain';
import { AdminHarness, gatewayError, Json, Org, startAdmin } from './admin-harness';

/**
 * The matrix for every admin route, systematically: a caller without the route's scope gets
 * 403 (the table is checked against the OpenAPI document, so a new route needs a row), and every id
 * of another organization, in the path, the query or the body, answers 404 with nothing changed.
 * Happy paths and validation errors are in the spec of each area.
 */

/** A public address literal: registering it needs no DNS, and nothing is ever sent there. */
const PUBLIC = 'https://93.184.216.34/v1';

interface Ids {
  org: string;
  key: string;
  target: string;
  providerId: string;
  alias: string;
  node: string;
  approval: string;
  request: string;
}

type Scope = 'admin:read' | 'admin:write' | 'billing:read';
type Route = [method: string, path: (ids: Ids) => string, scope: Scope, body?: Json];

const ROUTES: Route[] = [
  ['GET', () => '/policies', 'admin:read'],
  ['POST', () => '/policies', 'admin:write', { rpm_limit: 5 }],
  ['DELETE', (ids) => `/policies/${ids.org}`, 'admin:write'],
  ['POST', () => '/policies/apply-preset', 'admin:write', { preset: 'free' }],
  ['POST', () => '/policies/simulate', 'admin:read', { draft_policy: { rpm_limit: 1 } }],
  ['POST', (ids) => `/keys/${ids.key}/rotate`, 'admin:write'],
  ['POST', () => '/secrets', 'admin:write', { provider: 'mistral', plaintext_key: 'mistral-key-0000' }],
  ['GET', () => '/secrets', 'admin:read'],
  ['POST', () => '/secrets/rotate', 'admin:write', { provider: 'openai', plaintext_key: 'sk-rotated-0000' }],
  ['DELETE', () => '/secrets/openai', 'admin:write'],
  ['GET', () => '/usage', 'admin:read'],
  ['GET', () => '/usage/daily', 'admin:read'],
  ['GET', (ids) => `/usage/${ids.request}`, 'admin:read'],
  ['GET', () => '/usage/export', 'billing:read'],
  ['GET', () => '/billing/summary', 'billing:read'],
  ['GET', () => '/billing/export', 'billing:read'],
  ['GET', () => '/latency', 'admin:read'],
  ['GET', () => '/approvals', 'admin:read'],
  ['GET', () => '/approvals/stats', 'admin:read'],
  ['GET', (ids) => `/approvals/${ids.approval}`, 'admin:read'],
  ['POST', (ids) => `/approvals/${ids.approval}/approve`, 'admin:write'],
  ['POST', (ids) => `/approvals/${ids.approval}/reject`, 'admin:write', { reason: 'no' }],
  ['POST', () => '/provider-targets', 'admin:write', { name: 'New', base_url: PUBLIC }],
  ['GET', () => '/provider-targets', 'admin:read'],
  ['GET', (ids) => `/provider-targets/${ids.target}`, 'admin:read'],
  ['PATCH', (ids) => `/provider-targets/${ids.target}`, 'admin:write', { name: 'Renamed' }],
  ['DELETE', (ids) => `/provider-targets/${ids.target}`, 'admin:write'],
  ['POST', (ids) => `/provider-targets/${ids.target}/discover-models`, 'admin:write'],
  ['GET', (ids) => `/provider-targets/${ids.target}/catalog`, 'admin:read'],
  ['GET', () => '/discovery/catalog', 'admin:read'],
  ['GET', () => '/discovery/history', 'admin:read'],
  ['POST', () => '/model-aliases', 'admin:write', { alias: 'new-alias', model: 'gpt-4o' }],
  ['GET', () => '/model-aliases', 'admin:read'],
  ['GET', (ids) => `/model-aliases/${ids.alias}`, 'admin:read'],
  ['PATCH', (ids) => `/model-aliases/${ids.alias}`, 'admin:write', { model: 'gpt-4.1' }],
  ['DELETE', (ids) => `/model-aliases/${ids.alias}`, 'admin:write'],
  ['POST', () => '/budgets/nodes', 'admin:write', { name: 'Team', level: 'team', team_id: 'team-x', budget_limit: 1, reset_period: 'daily' }],
  ['GET', () => '/budgets/nodes', 'admin:read'],
  ['GET', (ids) => `/budgets/nodes/${ids.node}`, 'admin:read'],
  ['PATCH', (ids) => `/budgets/nodes/${ids.node}`, 'admin:write', { budget_limit: 2 }],
  ['DELETE', (ids) => `/budgets/nodes/${ids.node}`, 'admin:write'],
  ['GET', () => '/rate-limits/status', 'admin:read'],
];

/** The routes' paths as the OpenAPI document writes them (and as the tests are titled). */
const TEMPLATE: Ids = { org: '{org_id}', key: '{key_id}', target: '{id}', providerId: '{provider_id}', alias: '{id}', node: '{id}', approval: '{id}', request: '{request_id}' };
const titled = <T extends unknown[]>(rows: T[], title: (row: T) => string): [string, T][] => rows.map((row) => [title(row), row]);

/** Scopes of a key that has everything but the route's scope (and what implies it). */
const LACKING: Record<Scope, string[]> = {
  'admin:read': ['billing:read', 'gateway:write', 'gateway:read'],
  'admin:write': ['admin:read', 'billing:read', 'gateway:write', 'gateway:read'],
  'billing:read': ['admin:read', 'admin:write', 'gateway:write', 'gateway:read'],
};

describe('gateway admin: every route', () => {
  let h: AdminHarness;
  let ours: Ids;
  let theirs: Ids;

  async function seed(org: Org, suffix: string): Promise<Ids> {
    const ok = async (reply: Promise<{ status: number; body: Json }>) => {
      const res = await reply;
      expect(res.status).toBeLessThan(300);
      return res.body;
    };
    const call = (path: string, body: Json) => h.call('POST', `/gateway/admin${path}`, { key: org.admin, body });
    const target = await ok(call('/provider-targets', { name: `Lab ${suffix}`, provider_id: `lab-${suffix}`, base_url: PUBLIC }));
    const alias = await ok(call('/model-aliases', { alias: `fast-${suffix}`, model: 'gpt-4o-mini' }));
    const node = await ok(call('/budgets/nodes', { name: `Org ${suffix}`, level: 'org', budget_limit: 100, reset_period: 'monthly' }));
    await ok(call('/secrets', { provider: suffix === 'ours' ? 'openai' : 'anthropic', plaintext_key: `sk-${suffix}-secret-1234` }));
    const approval = await h.repos.approvals.create(asOrgId(org.id), {
      model: 'gpt-4o',
      provider: 'openai',
      estimated_cost: 12,
      hitl_threshold: 10,
      retry_after_seconds: 30,
      request_hash: `hash-${suffix}`,
      request_id: `gw_req_${suffix}`,
      key_id: null,
      ttl_ms: 3_600_000,
    });
    const [request] = await h.seedUsage(org.id, [{}]);
    const key = await h.newKey(org.id, ['gateway:write'], { name: `proxy ${suffix}` });
    return { org: org.id, key: key.key._id, target: target.id, providerId: target.provider_id, alias: alias.id, node: node.id, approval: approval._id, request: request._id };
  }

  /** What another organization must never change: every seeded resource, read back from the store. */
  async function snapshot(ids: Ids) {
    const org = asOrgId(ids.org);
    const r = h.repos;
    return {
      policy: await r.policies.get(org),
      key: await r.apiKeys.findById(org, ids.key),
      target: await r.providerTargets.findById(org, ids.target),
      alias: await r.modelAliases.findById(org, ids.alias),
      nodes: await r.budgetNodes.listAll(org),
      approval: await r.approvals.findById(org, ids.approval),
      secrets: await r.providerSecrets.listAll(org),
      targets: (await r.providerTargets.list(org, { limit: 1000 })).total,
      aliases: (await r.modelAliases.listAll(org)).length,
      runs: (await r.discoveryRuns.listRecent(org, 1000)).length,
    };
  }

  beforeAll(async () => {
    h = await startAdmin();
    ours = await seed(h.org, 'ours');
    theirs = await seed(h.other, 'theirs');
  });
  afterAll(() => h.stop());

  it('has a row for every documented admin route', async () => {
    const doc = (await (await fetch(`${h.url}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/gateway/admin/'))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.slice('/gateway/admin'.length)}`));
    const rows = ROUTES.map(([method, path]) => `${method} ${path(TEMPLATE).replace('/secrets/openai', '/secrets/{provider}')}`);
    expect(rows.sort()).toEqual(documented.sort());
  });

  describe('403 insufficient_scope without the route’s scope', () => {
    let before: Awaited<ReturnType<typeof snapshot>>;
    const keys = new Map<Scope, string>();
    beforeAll(async () => {
      before = await snapshot(ours);
      for (const scope of Object.keys(LACKING) as Scope[]) keys.set(scope, (await h.newKey(h.org.id, LACKING[scope])).plaintext);
    });

    it.each(titled(ROUTES, ([method, path, scope]) => `${method} ${path(TEMPLATE)} needs ${scope}`))('%s (a key without it)', async (_title, [method, path, scope, body]) => {
      const reply = await h.call(method, `/gateway/admin${path(ours)}`, { key: keys.get(scope), body });
      expect(gatewayError(reply, 403, 'insufficient_scope').message).toContain(scope);
    });

    const writes = ROUTES.filter(([, , scope]) => scope === 'admin:write');
    it.each(titled(writes, ([method, path]) => `${method} ${path(TEMPLATE)}`))('%s is refused to dashboard Managers and Members', async (_title, [method, path, , body]) => {
      for (const role of ['Manager', 'Member'] as const) {
        gatewayError(await h.call(method, `/gateway/admin${path(ours)}`, { token: h.token(h.org.id, role), body }), 403, 'insufficient_scope');
      }
    });

    it('changed nothing', async () => {
      expect(await snapshot(ours)).toEqual(before);
    });
  });

  describe('403 org_mismatch for an X-Org-ID naming another organization, nothing changed', () => {
    let before: Awaited<ReturnType<typeof snapshot>>;
    beforeAll(async () => {
      before = await snapshot(ours);
    });

    it.each(titled(ROUTES, ([method, path]) => `${method} ${path(TEMPLATE)}`))('%s refuses it from a gateway key and a dashboard token', async (_title, [method, path, , body]) => {
      for (const credential of [{ key: h.org.admin }, { token: h.token(h.org.id, 'Owner') }]) {
        for (const orgId of [h.other.id, 'org_nosuch']) {
          const reply = await h.call(method, `/gateway/admin${path(ours)}`, { ...credential, body, headers: { 'x-org-id': orgId } });
          expect(gatewayError(reply, 403, 'org_mismatch')).toMatchObject({ type: 'permission_error', message: expect.stringContaining('X-Org-ID') });
        }
      }
    });

    it('changed nothing', async () => {
      expect(await snapshot(ours)).toEqual(before);
    });

    it('an X-Org-ID naming the caller’s own organization, or none, is served', async () => {
      for (const credential of [{ key: h.org.admin }, { token: h.token(h.org.id, 'Member') }]) {
        for (const headers of [{ 'x-org-id': h.org.id }, {}] as Record<string, string>[]) {
          const reply = await h.call('GET', '/gateway/admin/rate-limits/status', { ...credential, headers });
          expect({ status: reply.status, org: reply.body.org_id }).toEqual({ status: 200, org: h.org.id });
        }
      }
      const other = await h.call('GET', '/gateway/admin/rate-limits/status', { key: h.other.admin, headers: { 'x-org-id': h.other.id } });
      expect({ status: other.status, org: other.body.org_id }).toEqual({ status: 200, org: h.other.id });
    });
  });

  describe('400 for a query parameter the route does not take', () => {
    const reads = ROUTES.filter(([method]) => method === 'GET');
    // `org_id` most of all: the organization comes from the credential, so another one's id in the
    // query is refused, never ignored (the caller would read their own data as the other's).
    it.each(titled(reads, ([method, path]) => `${method} ${path(TEMPLATE)}`))('%s refuses ?org_id= and an unknown parameter, takes ?api_key=', async (_title, [method, path]) => {
      for (const [name, value] of [['org_id', h.other.id], ['org_id', h.org.id], ['colour', 'red']]) {
        const url = `/gateway/admin${path(ours)}${path(ours).includes('?') ? '&' : '?'}${name}=${value}`;
        const error = gatewayError(await h.call(method, url, { key: h.org.admin }), 400, 'invalid_request');
        expect({ name, error }).toEqual({ name, error: { type: 'invalid_request_error', code: 'invalid_request', param: name, message: `property ${name} should not exist` } });
      }
      // The key itself may come as `api_key` (SPEC.md's fallback for clients without headers), on every route.
      const viaQuery = await fetch(`${h.url}/gateway/admin${path(ours)}?api_key=${encodeURIComponent(h.org.admin)}`, { method });
      expect({ status: viaQuery.status, text: viaQuery.status === 200 ? '' : await viaQuery.text() }).toEqual({ status: 200, text: '' });
    });

    // The writes alike, with a body each route accepts so the query is the only refusal; a refused
    // write changes nothing (`DELETE /budgets/nodes/{id}?org_id=other` deleted the caller's own node).
    const writes = ROUTES.filter(([method]) => method !== 'GET');
    it.each(titled(writes, ([method, path]) => `${method} ${path(TEMPLATE)}`))('%s refuses ?org_id= and an unknown parameter, takes ?api_key=, changes nothing', async (_title, [method, path, , body]) => {
      const before = await snapshot(ours);
      for (const [name, value] of [['org_id', h.other.id], ['org_id', h.org.id], ['colour', 'red']]) {
        const error = gatewayError(await h.call(method, `/gateway/admin${path(ours)}?${name}=${value}`, { key: h.org.admin, body }), 400, 'invalid_request');
        expect({ name, error }).toEqual({ name, error: { type: 'invalid_request_error', code: 'invalid_request', param: name, message: `property ${name} should not exist` } });
      }
      // The key as `api_key` (no header) authenticates and is not refused: the refusal names the other parameter alone.
      const viaQuery = await fetch(`${h.url}/gateway/admin${path(ours)}?api_key=${encodeURIComponent(h.org.admin)}&colour=red`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      expect({ status: viaQuery.status, body: await viaQuery.json() }).toEqual({
        status: 400,
        body: { error: { type: 'invalid_request_error', code: 'invalid_request', param: 'colour', message: 'property colour should not exist' } },
      });
      expect(await snapshot(ours)).toEqual(before);
    });
  });

  describe('400 for a body that is not a JSON object, nothing changed', () => {
    // Key rotation's body is optional (grace_period_hours may come in the query), but it is a DTO too.
    const withBody = [...ROUTES.filter(([, , , body]) => body !== undefined), ...ROUTES.filter(([method, path]) => method === 'POST' && path(TEMPLATE) === '/keys/{key_id}/rotate')];
    it.each(titled(withBody, ([method, path]) => `${method} ${path(TEMPLATE)}`))('%s refuses null, an array, a string and a number', async (_title, [method, path]) => {
      const before = await snapshot(ours);
      for (const body of [null, [], [{ name: 'x' }], 'x', 5]) {
        const error = gatewayError(await h.call(method, `/gateway/admin${path(ours)}`, { key: h.org.admin, body }), 400, 'invalid_request');
        expect({ body, type: error.type, message: error.message }).toEqual({ body, type: 'invalid_request_error', message: expect.stringMatching(/JSON object/) });
      }
      expect(await snapshot(ours)).toEqual(before);
    });
  });

  describe('404 for another organization’s ids, nothing changed', () => {
    let before: Awaited<ReturnType<typeof snapshot>>;
    let ourNodes: Awaited<ReturnType<typeof snapshot>>['nodes'];
    beforeAll(async () => {
      before = await snapshot(theirs);
      ourNodes = (await snapshot(ours)).nodes;
    });

    type Case = [method: string, path: (t: Ids, o: Ids) => string, param: string, body?: (t: Ids) => Json];
    const cases: Case[] = [
      ['DELETE', (t) => `/policies/${t.org}`, 'org_id'],
      ['POST', () => '/policies', 'org_id', (t) => ({ org_id: t.org, rpm_limit: 1 })],
      ['POST', () => '/policies/simulate', 'draft_policy.org_id', (t) => ({ draft_policy: { org_id: t.org } })],
      ['POST', (t) => `/keys/${t.key}/rotate`, 'key_id'],
      ['POST', () => '/secrets/rotate', 'provider', () => ({ provider: 'anthropic', plaintext_key: 'sk-ant-stolen-0000' })],
      ['DELETE', () => '/secrets/anthropic', 'provider'],
      ['GET', (t) => `/usage/${t.request}`, 'request_id'],
      ['GET', (t) => `/approvals/${t.approval}`, 'approval_id'],
      ['POST', (t) => `/approvals/${t.approval}/approve`, 'approval_id'],
      ['POST', (t) => `/approvals/${t.approval}/reject`, 'approval_id', () => ({ reason: 'no' })],
      ['GET', (t) => `/provider-targets/${t.target}`, 'target_id'],
      ['PATCH', (t) => `/provider-targets/${t.target}`, 'target_id', () => ({ name: 'Stolen' })],
      ['DELETE', (t) => `/provider-targets/${t.target}`, 'target_id'],
      ['POST', (t) => `/provider-targets/${t.target}/discover-models`, 'target_id'],
      ['GET', (t) => `/provider-targets/${t.target}/catalog`, 'target_id'],
      ['GET', (t) => `/discovery/history?target_id=${t.target}`, 'target_id'],
      ['GET', (t) => `/discovery/catalog?provider_id=${t.providerId}`, 'provider_id'],
      ['GET', (t) => `/model-aliases/${t.alias}`, 'alias_id'],
      ['PATCH', (t) => `/model-aliases/${t.alias}`, 'alias_id', () => ({ model: 'gpt-4.1' })],
      ['DELETE', (t) => `/model-aliases/${t.alias}`, 'alias_id'],
      ['GET', (t) => `/budgets/nodes/${t.node}`, 'node_id'],
      ['PATCH', (t) => `/budgets/nodes/${t.node}`, 'node_id', () => ({ budget_limit: 1 })],
      ['DELETE', (t) => `/budgets/nodes/${t.node}`, 'node_id'],
      ['POST', () => '/budgets/nodes', 'key_id', (t) => ({ name: 'K', level: 'key', key_id: t.key, budget_limit: 1, reset_period: 'daily' })],
      ['POST', () => '/budgets/nodes', 'parent_id', (t) => ({ name: 'T', level: 'team', team_id: 'team-y', parent_id: t.node, budget_limit: 1, reset_period: 'daily' })],
      ['PATCH', (_t, o) => `/budgets/nodes/${o.node}`, 'parent_id', (t) => ({ parent_id: t.node })],
    ];

    it.each(titled(cases, ([method, path, param]) => `${method} ${path(TEMPLATE, TEMPLATE)} (${param})`))('%s answers 404', async (_title, [method, path, param, body]) => {
      const reply = await h.call(method, `/gateway/admin${path(theirs, ours)}`, { body: body?.(theirs) });
      const error = gatewayError(reply, 404, 'not_found');
      expect(error).toMatchObject({ type: 'not_found_error', param });
      expect(reply.text).not.toContain('theirs');
    });

    it('changed nothing of theirs (and nothing of ours)', async () => {
      expect(await snapshot(theirs)).toEqual(before);
      expect((await snapshot(ours)).nodes).toEqual(ourNodes);
    });
  });
});
