import { asOrgId } from '@svc/domain';
import { Json, OrgApi, Session } from './org-api.helpers';

describe('org API: members, plan, runners, templates, removed routes and docs', () => {
  let api: OrgApi;
  let owner: Session;
  let other: Session;
  beforeAll(async () => {
    api = await OrgApi.boot({ PLAN_ADMIN_ENABLED: 'true' });
    owner = await api.loginOwner();
    other = await api.otherOrganization();
  });
  afterAll(() => api.stop());

  const members = (session: Session, method = 'GET', suffix = '', body?: Json) =>
    api.call(method, `/api/v1/organizations/${session.orgId}/members${suffix}`, { token: session.token, body });

  it('adds, lists and removes members; the new member can log in', async () => {
    const added = await members(owner, 'POST', '', { email: 'Ada@Example.com', password: 'ada-password-123', role: 'Operator', name: 'Ada' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: expect.stringMatching(/^usr_/), email: 'ada@example.com', role: 'Operator', name: 'Ada', last_login_at: null });
    expect(added.body.password_hash).toBeUndefined();
    const ada = await api.login('ada@example.com', 'ada-password-123');
    expect(ada.orgId).toBe(owner.orgId);
    const list = await members(owner, 'GET', '?limit=50');
    expect(list.body).toMatchObject({ offset: 0, limit: 50 });
    expect(list.body.items.map((m: Json) => m.email)).toEqual(expect.arrayContaining(['owner@example.com', 'ada@example.com']));
    const dup = await members(owner, 'POST', '', { email: 'ada@example.com', password: 'ada-password-123', role: 'Member' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'resource_already_exists', resource_type: 'user', conflicting_id: added.body.id });
    for (const body of [{ email: 'x@example.com', password: 'short', role: 'Member' }, { email: 'x@example.com', password: 'long-enough-pass', role: 'King' }, { email: 'nope', password: 'long-enough-pass', role: 'Member' }]) {
      expect((await members(owner, 'POST', '', body)).status).toBe(400);
    }
    expect((await members(owner, 'DELETE', `/${added.body.id}`)).status).toBe(204);
    expect((await api.call('POST', '/api/v1/auth/login', { body: { email: 'ada@example.com', password: 'ada-password-123' } })).status).toBe(401);
  });

  it('enforces roles on members: Admins add non-Owners, Members only read, the last Owner stays', async () => {
    const admin = await api.userWithRole(owner.orgId, 'Admin');
    const member = await api.userWithRole(owner.orgId, 'Member');
    expect((await members(member, 'GET')).status).toBe(200);
    expect((await members(member, 'POST', '', { email: 'm2@example.com', password: 'long-enough-pass', role: 'Member' })).status).toBe(403);
    expect((await members(admin, 'POST', '', { email: 'o2@example.com', password: 'long-enough-pass', role: 'Owner' })).status).toBe(403);
    expect((await members(admin, 'POST', '', { email: 'm3@example.com', password: 'long-enough-pass', role: 'Member' })).status).toBe(201);
    expect((await members(admin, 'DELETE', `/${owner.userId}`)).status).toBe(403);
    const last = await members(owner, 'DELETE', `/${owner.userId}`);
    expect(last.status).toBe(409);
    expect(last.body.error.code).toBe('LAST_OWNER');
  });

  it('only a signed-in Owner adds or removes an Owner: API keys with admin:write are refused', async () => {
    const key = await api.createKey(owner, ['admin:write']);
    const viaKey = (method: string, suffix = '', body?: Json) => api.call(method, `/api/v1/organizations/${owner.orgId}/members${suffix}`, { key: key.key, body });
    const refused = await viaKey('POST', '', { email: 'key-owner@example.com', password: 'long-enough-pass', role: 'Owner' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('API keys') });
    expect(await api.repos.users.findByEmail(asOrgId(owner.orgId), 'key-owner@example.com')).toBeNull();
    const second = await members(owner, 'POST', '', { email: 'second-owner@example.com', password: 'long-enough-pass', role: 'Owner' });
    expect(second.status).toBe(201);
    expect((await viaKey('DELETE', `/${second.body.id}`)).status).toBe(403);
    expect((await api.repos.users.findById(asOrgId(owner.orgId), second.body.id))?.role).toBe('Owner');
    // Non-Owners stay manageable with the key; the Owner removes the second Owner.
    const member = await viaKey('POST', '', { email: 'key-member@example.com', password: 'long-enough-pass', role: 'Member' });
    expect(member.status).toBe(201);
    expect((await viaKey('DELETE', `/${member.body.id}`)).status).toBe(204);
    expect((await members(owner, 'DELETE', `/${second.body.id}`)).status).toBe(204);
  });

  it('answers 404 on register while SIGNUP_ENABLED is off, whatever the body', async () => {
    for (const body of [{}, { email: 'nope', password: 'x' }, { email: 'new@example.com', password: 'a-long-password-1', org_name: 'New' }]) {
      const res = await api.call('POST', '/api/v1/auth/register', { body });
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 404, code: 'NOT_FOUND' });
    }
  });

  it('refuses null for any field when adding a member (400 naming the field), the optional name too', async () => {
    const valid = { email: 'null-member@example.com', password: 'null-member-pass-1', role: 'Member' };
    const cases: [string, string][] = [
      ['email', 'email must not be null'],
      ['password', 'password must not be null'],
      ['role', 'role must not be null'],
      ['name', 'name must not be null (omit it for the default)'],
    ];
    for (const [field, message] of cases) {
      const res = await members(owner, 'POST', '', { ...valid, [field]: null });
      expect({ field, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param, message: res.body.error?.message }).toEqual({
        field,
        status: 400,
        code: 'VALIDATION_ERROR',
        param: field,
        message,
      });
    }
    expect((await members(owner, 'GET', '?limit=100')).body.items.map((m: Json) => m.email)).not.toContain(valid.email);
    // The control: name left out is no name.
    const added = await members(owner, 'POST', '', valid);
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ email: valid.email, name: null });
  });

  it('refuses null on PATCH of the organization (400 naming the field) and changes nothing', async () => {
    const before = await api.repos.organizations.findById(asOrgId(owner.orgId));
    for (const field of ['name', 'plan', 'subscription_status']) {
      const res = await api.call('PATCH', `/api/v1/organizations/${owner.orgId}`, { token: owner.token, body: { [field]: null } });
      expect({ field, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param, message: res.body.error?.message }).toEqual({
        field,
        status: 400,
        code: 'VALIDATION_ERROR',
        param: field,
        message: `${field} must not be null (omit it to leave it unchanged)`,
      });
    }
    expect(await api.repos.organizations.findById(asOrgId(owner.orgId))).toEqual(before);
  });

  it("answers 404 for another organization's ids in the path, users included", async () => {
    const paths: [string, string, Json | undefined][] = [
      ['GET', `/api/v1/organizations/${other.orgId}`, undefined],
      ['PATCH', `/api/v1/organizations/${other.orgId}`, { name: 'Hijacked' }],
      ['GET', `/api/v1/organizations/${other.orgId}/members`, undefined],
      ['POST', `/api/v1/organizations/${other.orgId}/members`, { email: 'spy@example.com', password: 'long-enough-pass', role: 'Owner' }],
      ['DELETE', `/api/v1/organizations/${other.orgId}/members/${other.userId}`, undefined],
      ['DELETE', `/api/v1/organizations/${owner.orgId}/members/${other.userId}`, undefined],
    ];
    for (const [method, path, body] of paths) {
      const res = await api.call(method, path, { token: owner.token, body });
      expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({ method, path, status: 404, code: 'NOT_FOUND' });
    }
    expect((await api.call('GET', `/api/v1/organizations/${other.orgId}`, { token: other.token })).body.name).toBe('Other Org');
  });

  it('changes the plan when PLAN_ADMIN_ENABLED=true (aliases accepted), Owners and Admins only', async () => {
    const res = await api.call('PATCH', `/api/v1/organizations/${owner.orgId}`, { token: owner.token, body: { plan: 'team', subscription_status: 'trialing' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: owner.orgId, plan: 'growth', subscription_status: 'trialing' });
    const enterprise = await api.call('PATCH', `/api/v1/organizations/${owner.orgId}`, { token: owner.token, body: { plan: 'enterprise', subscription_status: 'active' } });
    expect(enterprise.body.plan).toBe('enterprise');
    // The cached organization was invalidated: the very next request sees the new plan.
    expect((await api.call('GET', '/api/v1/user/profile', { token: owner.token })).body.organization.plan).toBe('enterprise');
    expect((await api.call('PATCH', `/api/v1/organizations/${owner.orgId}`, { token: owner.token, body: { plan: 'platinum' } })).status).toBe(400);
    const manager = await api.userWithRole(owner.orgId, 'Manager');
    expect((await api.call('PATCH', `/api/v1/organizations/${owner.orgId}`, { token: manager.token, body: { plan: 'free' } })).status).toBe(403);
    expect((await api.call('GET', `/api/v1/organizations/${owner.orgId}`, { token: manager.token })).body.plan).toBe('enterprise');
  });

  it("lists the organization's runners, paginated, and 404s another organization's runner", async () => {
    const org = asOrgId(owner.orgId);
    const mine = await api.repos.runners.create(org, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, name: 'r1' });
    await api.repos.runners.create(org, { provider_type: 'fake', tool_profile: 'web_automation', ttl_seconds: 900 });
    const theirs = await api.repos.runners.create(asOrgId(other.orgId), { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 });
    const member = await api.userWithRole(owner.orgId, 'Member');
    const list = await api.call('GET', '/api/v1/admin/runners?limit=1', { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 2, offset: 0, limit: 1 });
    expect(list.body.items[0]).toMatchObject({ runner_id: expect.stringMatching(/^run_/), org_id: owner.orgId, state: 'provisioning', version: 1 });
    const byState = await api.call('GET', '/api/v1/admin/runners?state=ready', { token: owner.token });
    expect(byState.body.total).toBe(0);
    expect((await api.call('GET', '/api/v1/admin/runners?state=flying', { token: owner.token })).status).toBe(400);
    expect((await api.call('GET', `/api/v1/admin/runners/${mine._id}`, { token: owner.token })).body).toMatchObject({ name: 'r1', tool_profile: 'locked' });
    expect((await api.call('GET', `/api/v1/admin/runners/${theirs._id}`, { token: owner.token })).status).toBe(404);
    const key = await api.createKey(owner, ['admin:read']);
    expect((await api.call('GET', '/api/v1/admin/runners', { key: key.key })).status).toBe(200);
    const noScope = await api.createKey(owner, ['costs:read']);
    expect((await api.call('GET', '/api/v1/admin/runners', { key: noScope.key })).status).toBe(403);
  });

  it('serves the autopilot template registry', async () => {
    const list = await api.call('GET', '/api/v1/autopilot/templates', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.total).toBeGreaterThanOrEqual(5);
    for (const template of list.body.items) {
      expect(template).toMatchObject({ id: expect.any(String), name: expect.any(String), description: expect.any(String), policy: expect.any(Object) });
    }
    const one = await api.call('GET', `/api/v1/autopilot/templates/${list.body.items[0].id}`, { token: owner.token });
    expect(one.body).toEqual(list.body.items[0]);
    expect((await api.call('GET', '/api/v1/autopilot/templates/nope', { token: owner.token })).status).toBe(404);
    expect((await api.call('GET', '/api/v1/autopilot/templates')).status).toBe(401);
  });

  it('answers 410 on every former /api/v1/admin/agents route, in the org error format', async () => {
    for (const [method, path] of [['GET', '/api/v1/admin/agents'], ['GET', '/api/v1/admin/agents/health'], ['POST', '/api/v1/admin/agents/a1/run'], ['DELETE', '/api/v1/admin/agents/a1']]) {
      const res = await api.call(method, path, { token: owner.token });
      expect({ path, status: res.status, code: res.body.error.code, details: res.body.error.details }).toEqual({ path, status: 410, code: 'GONE', details: {} });
    }
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body above 1 MB, in the org error format, and creates nothing', async () => {
    const before = (await api.repos.webhooks.list(asOrgId(owner.orgId), { limit: 1000 })).total;
    const body = { url: 'https://hooks.example.com/huge', events: ['budget.exceeded'], description: 'x'.repeat(1024 * 1024) };
    const res = await api.call('POST', '/api/v1/admin/webhooks', { token: owner.token, body });
    expect({ status: res.status, code: res.body.error?.code, details: res.body.error?.details }).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE', details: {} });
    expect(res.body.error.message).toContain('1048576 bytes');
    expect((await api.repos.webhooks.list(asOrgId(owner.orgId), { limit: 1000 })).total).toBe(before);
  });

  it('refuses a body that is not a JSON object on every route with a body (400 VALIDATION_ERROR naming body)', async () => {
    const doc = (await api.call('GET', '/docs/json')).body;
    const routes = Object.entries(doc.paths as Record<string, Record<string, Json>>)
      .filter(([path]) => path.startsWith('/api/v1') && path !== '/api/v1/auth/register') // 404 while SIGNUP_ENABLED is off, whatever the body
      .flatMap(([path, methods]) => Object.entries(methods).filter(([, operation]) => operation.requestBody).map(([method]) => [method.toUpperCase(), path]));
    expect(routes.length).toBeGreaterThan(10);
    const before = await api.repos.organizations.findById(asOrgId(owner.orgId));
    for (const [method, template] of routes) {
      const path = template.replace('{org_id}', owner.orgId).replace(/\{[a-z_]+\}/g, 'id_missing');
      for (const body of [null, [], 'x', 5]) {
        const res = await api.call(method, path, { token: owner.token, body });
        expect({ method, path, body, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({ method, path, body, status: 400, code: 'VALIDATION_ERROR', param: 'body' });
      }
    }
    expect(await api.repos.organizations.findById(asOrgId(owner.orgId))).toEqual(before);
  });

  it('documents every route with its roles and scopes in OpenAPI', async () => {
    const doc = (await api.call('GET', '/docs/json')).body;
    const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).filter(([path]) => path.startsWith('/api/v1') && !path.startsWith('/api/v1/admin/agents'));
    expect(operations.length).toBeGreaterThan(20);
    for (const [path, methods] of operations) {
      for (const [method, operation] of Object.entries(methods)) {
        expect({ path, method, ok: /Roles:|No authentication|Authentication optional|signed-in user/.test(operation.description ?? '') }).toEqual({ path, method, ok: true });
      }
    }
    expect(doc.paths['/api/v1/platform/api-keys'].post.description).toContain('API key scopes: keys:write or admin:write');
  });
});
