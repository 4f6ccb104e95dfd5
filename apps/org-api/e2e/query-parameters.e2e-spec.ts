import { asOrgId } from '@svc/domain';
import { Json, OrgApi, Session, usageRecord } from './org-api.helpers';

/**
 * docs/org-api-access.md "Errors and collections": every route of the organization API refuses a query
 * parameter it does not take with 400 `VALIDATION_ERROR` naming it in `details.param`, reads and
 * writes alike, and a refused write changes nothing; the parameters SPEC.md gives a route (`offset`,
 * `limit`, `page`, `page_size`, `period`, `granularity`, ...) are taken. The public routes (the
 * probes, `GET /`, login, refresh, logout) ignore the query. The table is checked against the
 * OpenAPI document, so a new route needs a row.
 */

interface Ids {
  org: string;
  key: string;
  budget: string;
  member: string;
  runner: string;
  template: string;
}

/** A route: its path, a body it accepts, and the query parameters it takes with a valid value each. */
type Route = [method: string, path: (ids: Ids) => string, body?: (ids: Ids) => Json, takes?: Record<string, string>];

const PAGE = { offset: '0', limit: '5' };

const ROUTES: Route[] = [
  ['GET', () => '/api/v1/user/profile'],
  ['GET', () => '/api/v1/agents/health', undefined, { ...PAGE, window_hours: '48' }],
  ['GET', () => '/api/v1/agents/support-bot/health', undefined, { window_hours: '48' }],
  ['GET', () => '/api/v1/autopilot/templates', undefined, PAGE],
  ['GET', (ids) => `/api/v1/autopilot/templates/${ids.template}`],
  ['POST', () => '/api/v1/platform/api-keys', () => ({ name: 'query-new-key', scopes: ['admin:read'] })],
  ['GET', () => '/api/v1/platform/api-keys', undefined, PAGE],
  ['GET', (ids) => `/api/v1/platform/api-keys/${ids.key}`],
  ['DELETE', (ids) => `/api/v1/platform/api-keys/${ids.key}`],
  ['POST', () => '/api/v1/admin/keys', (ids) => ({ org_id: ids.org, name: 'query-admin-key' })],
  ['GET', () => '/api/v1/admin/costs/budgets', undefined, { page: '1', page_size: '10' }],
  ['POST', () => '/api/v1/admin/costs/budgets', () => ({ name: 'query budget', limit: 10 })],
  ['GET', (ids) => `/api/v1/admin/costs/budgets/${ids.budget}`],
  ['PUT', (ids) => `/api/v1/admin/costs/budgets/${ids.budget}`, () => ({ limit: 99 })],
  ['DELETE', (ids) => `/api/v1/admin/costs/budgets/${ids.budget}`],
  ['GET', () => '/api/v1/admin/metrics/cost-optimization', undefined, { period: '30d', granularity: 'weekly' }],
  ['GET', () => '/api/v1/admin/runners', undefined, { ...PAGE, state: 'ready' }],
  ['GET', (ids) => `/api/v1/admin/runners/${ids.runner}`],
  ['GET', (ids) => `/api/v1/organizations/${ids.org}`],
  ['PATCH', (ids) => `/api/v1/organizations/${ids.org}`, () => ({ name: 'Renamed by query' })],
  ['POST', (ids) => `/api/v1/organizations/${ids.org}/members`, () => ({ email: 'query-member@example.com', password: 'member-password-123', role: 'Member' })],
  ['GET', (ids) => `/api/v1/organizations/${ids.org}/members`, undefined, PAGE],
  ['DELETE', (ids) => `/api/v1/organizations/${ids.org}/members/${ids.member}`],
  ['PATCH', (ids) => `/api/v1/admin/gateway/policy/${ids.org}`, () => ({ rpm_limit: 7 })],
];

/** Public routes: they take no credential, or are probes, and ignore the query as before. */
const PUBLIC = ['GET /', 'GET /health', 'GET /api/v1/health', 'POST /api/v1/auth/login', 'POST /api/v1/auth/refresh', 'POST /api/v1/auth/logout', 'POST /api/v1/auth/register'];

/**
 * Not covered here: the webhook and team-chat routes (webhooks.e2e-spec.ts covers them with a webhook,
 * a dead letter and the queue of their own), and `/api/v1/admin/agents/*` (410 `GONE` to anything).
 */
const ELSEWHERE = /^\w+ \/api\/v1\/(admin\/webhooks|webhooks\/deliver|admin\/integrations\/chat|admin\/agents)/;

const TEMPLATE: Ids = { org: '{org_id}', key: '{id}', budget: '{budget_id}', member: '{user_id}', runner: '{runner_id}', template: '{template_id}' };
const titled = <T extends unknown[]>(rows: T[], title: (row: T) => string): [string, T][] => rows.map((row) => [title(row), row]);
const withQuery = (path: string, query: Record<string, string>) => `${path}?${new URLSearchParams(query).toString()}`;

describe('organization API: query parameters a route does not take', () => {
  let api: OrgApi;
  let owner: Session;
  let ids: Ids;

  /** Everything the writes of the table could change, read back from the store. */
  async function snapshot() {
    const org = asOrgId(owner.orgId);
    const r = api.repos;
    return {
      organization: await r.organizations.findById(org),
      keys: (await r.apiKeys.list(org, { limit: 1000 })).items.map(({ _id, name, status }) => ({ _id, name, status })),
      users: (await r.users.list(org, { limit: 1000 })).items.map(({ _id, email, role }) => ({ _id, email, role })),
      budgets: (await r.namedBudgets.list(org, { limit: 1000 })).items,
      policy: await r.policies.get(org),
      runners: (await r.runners.list(org, { limit: 1000 })).items,
    };
  }

  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
    const org = asOrgId(owner.orgId);
    const key = await api.createKey(owner, ['admin:read'], 'query-victim');
    const budget = await api.call('POST', '/api/v1/admin/costs/budgets', { token: owner.token, body: { name: 'query victim', limit: 5 } });
    const member = await api.repos.users.create(org, { email: 'query-victim@example.com', role: 'Member', password_hash: 'x' });
    const runner = await api.repos.runners.create(org, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 });
    const templates = await api.call('GET', '/api/v1/autopilot/templates', { token: owner.token });
    await api.repos.usage.recordBatch([usageRecord(owner.orgId, { agent: 'support-bot', created_at: new Date(Date.now() - 60_000) })]);
    ids = { org: owner.orgId, key: key.id, budget: budget.body.id, member: member._id, runner: runner._id, template: templates.body.items[0].id };
  });
  afterAll(() => api.stop());

  it('has a row for every documented route (or names it public, or covered elsewhere)', async () => {
    const doc = (await api.call('GET', '/docs/json')).body as { paths: Record<string, Json> };
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    const rows = ROUTES.map(([method, path]) => `${method} ${path(TEMPLATE)}`.replace('/agents/support-bot/', '/agents/{agent_name}/'));
    expect(rows.sort()).toEqual(documented.filter((route) => !PUBLIC.includes(route) && !ELSEWHERE.test(route)).sort());
    expect(documented.filter((route) => PUBLIC.includes(route)).sort()).toEqual([...PUBLIC].sort());
  });

  // `org_id` most of all: the organization comes from the credential, so another one's id (or the
  // caller's own) in the query is refused, never ignored. `api_key` is no credential on this API.
  it.each(titled(ROUTES, ([method, path]) => `${method} ${path(TEMPLATE)}`))('%s refuses ?org_id=, ?api_key= and an unknown parameter: 400 naming it, nothing changed', async (_title, [method, path, body, takes]) => {
    const before = await snapshot();
    const other = await api.repos.organizations.create({ name: 'Query Other', plan: 'starter' });
    for (const [name, value] of [['org_id', other._id], ['org_id', owner.orgId], ['colour', 'red'], ['api_key', 'svc_sk_anything']]) {
      // Beside the parameters the route takes (valid ones), the unknown one alone is named.
      const res = await api.call(method, withQuery(path(ids), { ...takes, [name]: value }), { token: owner.token, body: body?.(ids) });
      expect({ name, status: res.status, error: res.body.error }).toEqual({
        name,
        status: 400,
        error: { code: 'VALIDATION_ERROR', message: `property ${name} should not exist`, details: { param: name } },
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  // SPEC.md's query parameters are never refused.
  const reads = ROUTES.filter(([method]) => method === 'GET');
  it.each(titled(reads, ([method, path, , takes]) => `${method} ${path(TEMPLATE)} ${Object.keys(takes ?? {}).join(', ') || '(none)'}`))('%s: served with the parameters it takes', async (_title, [method, path, , takes]) => {
    const res = await api.call(method, withQuery(path(ids), takes ?? {}), { token: owner.token });
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  });

  it('the writes of the table, without the parameter, are served: the query was their only refusal', async () => {
    for (const [method, path, body] of ROUTES.filter(([m]) => m !== 'GET')) {
      const res = await api.call(method, path(ids), { token: owner.token, body: body?.(ids) });
      expect({ method, path: path(TEMPLATE), served: res.status >= 200 && res.status < 300, error: res.body.error }).toEqual({ method, path: path(TEMPLATE), served: true, error: undefined });
    }
  });

  it('the public routes ignore the query, as before', async () => {
    const query = `?org_id=org_other&colour=red`;
    for (const path of ['/', '/health', '/api/v1/health']) {
      expect([path, (await api.call('GET', `${path}${query}`, { token: owner.token })).status]).toEqual([path, 200]);
    }
    const login = await api.call('POST', `/api/v1/auth/login${query}`, { body: { email: 'owner@example.com', password: 'correct-horse-battery-staple' } });
    expect(login.status).toBe(200);
    const refreshed = await api.call('POST', `/api/v1/auth/refresh${query}`, { body: { refresh_token: login.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    const logout = await api.call('POST', `/api/v1/auth/logout${query}`, { token: refreshed.body.access_token, body: {} });
    expect(logout.status).toBe(204);
  });
});
