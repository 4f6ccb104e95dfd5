import { asOrgId } from '@svc/domain';
import { clearOfMinuteEdge } from '@svc/testing';
import { Json, OrgApi, Session } from './org-api.helpers';

describe('org API: API keys, roles and the rate limit', () => {
  let api: OrgApi;
  let owner: Session;
  let other: Session;
  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
    other = await api.otherOrganization();
  });
  afterAll(() => api.stop());

  const create = (session: Session, body: Json) => api.call('POST', '/api/v1/platform/api-keys', { token: session.token, body });

  it('creates a key shown once (201), stores only its hash and lists it without plaintext', async () => {
    const res = await create(owner, { name: 'ci', scopes: ['gateway:write', 'costs:read'], ip_allowlist: ['127.0.0.1', '10.0.0.0/8'], team_id: 'team-data' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      name: 'ci',
      key: expect.stringMatching(/^svc_sk_[A-Za-z0-9]{40}$/),
      scopes: ['gateway:write', 'costs:read'],
      created_at: expect.any(String),
      ip_allowlist: ['127.0.0.1', '10.0.0.0/8'],
      team_id: 'team-data',
    });
    const stored = await api.repos.apiKeys.findById(asOrgId(owner.orgId), res.body.id);
    expect(JSON.stringify(stored)).not.toContain(res.body.key);
    const list = await api.call('GET', '/api/v1/platform/api-keys', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: expect.any(Number), offset: 0, limit: 20 });
    const listed = list.body.items.find((k: Json) => k.id === res.body.id);
    expect(listed).toMatchObject({ name: 'ci', status: 'active', key_prefix: res.body.key.slice(0, 11), last_four: res.body.key.slice(-4) });
    expect(listed.key).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);
    const one = await api.call('GET', `/api/v1/platform/api-keys/${res.body.id}`, { token: owner.token });
    expect(one.body).toMatchObject({ id: res.body.id, team_id: 'team-data' });
  });

  it('validates scopes against the known set and stores gateway_proxy as gateway:write', async () => {
    const bad = await create(owner, { name: 'bad', scopes: ['gateway:write', 'root:everything', 'nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { param: 'scopes', unknown_scopes: ['root:everything', 'nope'] } });
    expect(bad.body.error.message).toContain('root:everything');
    const alias = await create(owner, { name: 'proxy', scopes: ['gateway_proxy'] });
    expect(alias.status).toBe(201);
    expect(alias.body.scopes).toEqual(['gateway:write']);
  });

  it('validates the body: name, scopes, allowlist entries, unknown fields', async () => {
    const cases: [Json, string][] = [
      [{ scopes: ['gateway:read'] }, 'name'],
      [{ name: '', scopes: ['gateway:read'] }, 'name'],
      [{ name: 'x'.repeat(121), scopes: ['gateway:read'] }, 'name'],
      [{ name: 'n' }, 'scopes'],
      [{ name: 'n', scopes: [] }, 'scopes'],
      [{ name: 'n', scopes: ['gateway:read'], ip_allowlist: ['10.0.0.0/33', 'example.com'] }, 'ip_allowlist'],
      [{ name: 'n', scopes: ['gateway:read'], owner: 'me' }, 'owner'],
    ];
    for (const [body, param] of cases) {
      const res = await create(owner, body);
      expect({ body, status: res.status, param: res.body.error.details.param }).toEqual({ body, status: 400, param });
    }
  });

  it('refuses null for any field on create (400 naming the field), the optional ones too, and creates nothing', async () => {
    const total = (await api.call('GET', '/api/v1/platform/api-keys', { token: owner.token })).body.total;
    const valid = { name: 'null-guard', scopes: ['gateway:read'] };
    const cases: [Json, string, string][] = [
      [{ ...valid, name: null }, 'name', 'name must not be null'],
      [{ ...valid, scopes: null }, 'scopes', 'scopes must not be null'],
      [{ ...valid, ip_allowlist: null }, 'ip_allowlist', 'ip_allowlist must not be null (omit it for the default)'],
      [{ ...valid, team_id: null }, 'team_id', 'team_id must not be null (omit it for the default)'],
    ];
    for (const [body, param, message] of cases) {
      const res = await create(owner, body);
      expect({ body, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param, message: res.body.error?.message }).toEqual({
        body,
        status: 400,
        code: 'VALIDATION_ERROR',
        param,
        message,
      });
    }
    expect((await api.call('GET', '/api/v1/platform/api-keys', { token: owner.token })).body.total).toBe(total);
    // The control: the optional fields left out take their defaults.
    const ok = await create(owner, valid);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ ip_allowlist: [], team_id: null });
  });

  it('answers 409 resource_already_exists for a duplicate name', async () => {
    const first = await create(owner, { name: 'deploy-bot', scopes: ['gateway:write'] });
    const dup = await create(owner, { name: 'deploy-bot', scopes: ['gateway:read'] });
    expect(dup.status).toBe(409);
    const requestId = dup.body.error?.request_id;
    expect(requestId).toMatch(/^req_/);
    // SPEC.md's admin conflict fields at the top level, and the organization API's `details` with the same.
    expect(dup.body).toEqual({
      error: {
        code: 'resource_already_exists',
        message: expect.stringContaining('deploy-bot'),
        request_id: requestId,
        resource_type: 'api_key',
        conflicting_id: first.body.id,
        details: { request_id: requestId, resource_type: 'api_key', conflicting_id: first.body.id },
      },
    });
    // Another organization may use the same name.
    expect((await create(other, { name: 'deploy-bot', scopes: ['gateway:write'] })).status).toBe(201);
  });

  it('revokes a key (204): it stops authenticating at once; revoking again is idempotent', async () => {
    const key = await api.createKey(owner, ['keys:read']);
    expect((await api.call('GET', '/api/v1/platform/api-keys', { key: key.key })).status).toBe(200);
    expect((await api.call('DELETE', `/api/v1/platform/api-keys/${key.id}`, { token: owner.token })).status).toBe(204);
    const after = await api.call('GET', '/api/v1/platform/api-keys', { key: key.key });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHORIZED');
    expect((await api.call('DELETE', `/api/v1/platform/api-keys/${key.id}`, { token: owner.token })).status).toBe(204);
    const listed = await api.call('GET', `/api/v1/platform/api-keys/${key.id}`, { token: owner.token });
    expect(listed.body).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
  });

  it('accepts API keys in X-API-Key and as a gateway-prefixed bearer, per their scopes', async () => {
    const reader = await api.createKey(owner, ['keys:read']);
    expect((await api.call('GET', '/api/v1/platform/api-keys', { key: reader.key })).status).toBe(200);
    expect((await api.call('GET', '/api/v1/platform/api-keys', { token: reader.key })).status).toBe(200);
    const denied = await api.call('POST', '/api/v1/platform/api-keys', { key: reader.key, body: { name: 'x', scopes: ['keys:read'] } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'FORBIDDEN', details: { required_scopes: ['keys:write', 'admin:write'] } });
    expect((await api.call('GET', '/api/v1/admin/webhooks', { key: reader.key })).status).toBe(403);
    const profile = await api.call('GET', '/api/v1/user/profile', { key: reader.key });
    expect(profile.body).toMatchObject({ type: 'api_key', key_id: reader.id, org_id: owner.orgId, scopes: ['keys:read'] });
    const unknown = await api.call('GET', '/api/v1/platform/api-keys', { key: 'svc_sk_doesnotexist000000000000000000000000000' });
    expect(unknown.status).toBe(401);
  });

  it('an API key cannot mint keys with scopes it does not hold', async () => {
    const writer = await api.createKey(owner, ['keys:write']);
    const escalate = await api.call('POST', '/api/v1/platform/api-keys', { key: writer.key, body: { name: 'esc', scopes: ['admin:write'] } });
    expect(escalate.status).toBe(403);
    const same = await api.call('POST', '/api/v1/platform/api-keys', { key: writer.key, body: { name: 'child', scopes: ['keys:read'] } });
    expect(same.status).toBe(201);
  });

  it('enforces the IP allowlist of a key', async () => {
    const outside = await create(owner, { name: 'vpn-only', scopes: ['keys:read'], ip_allowlist: ['10.9.0.0/16'] });
    const res = await api.call('GET', '/api/v1/platform/api-keys', { key: outside.body.key });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'ip_not_allowed' } });
  });

  it('roles: a Member reads but cannot create keys; a Manager cannot either; an Admin can', async () => {
    const member = await api.userWithRole(owner.orgId, 'Member');
    expect((await api.call('GET', '/api/v1/platform/api-keys', { token: member.token })).status).toBe(200);
    const denied = await create(member, { name: 'm', scopes: ['gateway:read'] });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'FORBIDDEN', details: { required: 'Owner or Admin' } });
    const key = await api.createKey(owner, ['gateway:read']);
    expect((await api.call('DELETE', `/api/v1/platform/api-keys/${key.id}`, { token: member.token })).status).toBe(403);
    const manager = await api.userWithRole(owner.orgId, 'Manager');
    expect((await create(manager, { name: 'mg', scopes: ['gateway:read'] })).status).toBe(403);
    const admin = await api.userWithRole(owner.orgId, 'Admin');
    expect((await create(admin, { name: 'adm', scopes: ['gateway:read'] })).status).toBe(201);
  });

  it("answers 404 for another organization's key ids", async () => {
    const theirs = await api.createKey(other, ['gateway:read']);
    for (const method of ['GET', 'DELETE']) {
      const res = await api.call(method, `/api/v1/platform/api-keys/${theirs.id}`, { token: owner.token });
      expect({ method, status: res.status, code: res.body.error.code }).toEqual({ method, status: 404, code: 'NOT_FOUND' });
    }
    expect((await api.call('GET', '/api/v1/platform/api-keys', { key: theirs.key })).status).toBe(403);
    const stillActive = await api.call('GET', `/api/v1/platform/api-keys/${theirs.id}`, { token: other.token });
    expect(stillActive.body.status).toBe('active');
  });

  it('pages collections with offset and limit (default 20, max 100; 400 outside)', async () => {
    for (let i = 0; i < 3; i += 1) await api.createKey(other, ['gateway:read'], `page-${i}`);
    const page = await api.call('GET', '/api/v1/platform/api-keys?offset=1&limit=2', { token: other.token });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ offset: 1, limit: 2 });
    expect(page.body.items).toHaveLength(2);
    expect(page.body.total).toBeGreaterThanOrEqual(4);
    for (const query of ['limit=101', 'limit=0', 'offset=-1', 'limit=abc']) {
      const res = await api.call('GET', `/api/v1/platform/api-keys?${query}`, { token: other.token });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
  });

  it('accepts only decimal integers for offset and limit (safe integers for offset); an empty value is 400 naming it', async () => {
    const cases = [
      'limit=0x10',
      'limit=0b11',
      'limit=0o7',
      'limit=1e1',
      'limit=10.0',
      'limit=+5',
      'limit=%205',
      'limit=',
      'offset=',
      'offset=0x1',
      'offset=1e3',
      'offset=99999999999999999999',
      'offset=9007199254740992',
    ];
    for (const query of cases) {
      const res = await api.call('GET', `/api/v1/platform/api-keys?${query}`, { token: other.token });
      const param = query.split('=')[0];
      expect({ query, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({ query, status: 400, code: 'VALIDATION_ERROR', param });
    }
    const empty = await api.call('GET', '/api/v1/platform/api-keys?limit=', { token: other.token });
    expect(empty.body.error.message).toBe('limit must be an integer from 1 to 100, in decimal digits');
    // The same rule on every collection of the API.
    const webhooks = await api.call('GET', '/api/v1/admin/webhooks?limit=0x10', { token: other.token });
    expect({ status: webhooks.status, param: webhooks.body.error?.details?.param }).toEqual({ status: 400, param: 'limit' });
    // The controls: leading zeros are still decimal; the largest safe offset is echoed as sent.
    expect((await api.call('GET', '/api/v1/platform/api-keys?offset=01&limit=016', { token: other.token })).body).toMatchObject({ offset: 1, limit: 16 });
    const far = await api.call('GET', '/api/v1/platform/api-keys?offset=9007199254740991', { token: other.token });
    expect(far.status).toBe(200);
    expect(far.body).toMatchObject({ items: [], offset: 9007199254740991, limit: 20 });
  });

  it('refuses plan changes unless PLAN_ADMIN_ENABLED=true; renaming is allowed', async () => {
    const res = await api.call('PATCH', `/api/v1/organizations/${owner.orgId}`, { token: owner.token, body: { plan: 'enterprise' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FEATURE_DISABLED');
    const renamed = await api.call('PATCH', `/api/v1/organizations/${owner.orgId}`, { token: owner.token, body: { name: 'Renamed' } });
    expect(renamed.body).toMatchObject({ name: 'Renamed', plan: 'growth' });
  });

  it('register answers 404 unless SIGNUP_ENABLED=true', async () => {
    const res = await api.call('POST', '/api/v1/auth/register', { body: { email: 'x@example.com', password: 'a-long-password-1', org_name: 'X' } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});

describe('org API rate limit on Redis', () => {
  let api: OrgApi;
  beforeAll(async () => {
    api = await OrgApi.boot({ REDIS_URL: process.env.TEST_REDIS_URL as string, ORG_API_RATE_LIMIT_RPM: '5' });
  });
  afterAll(() => api.stop());

  it('answers 429 RATE_LIMIT_EXCEEDED with details.retry_after above the per-organization limit', async () => {
    const owner = await api.loginOwner();
    await clearOfMinuteEdge();
    const statuses: number[] = [];
    let last: Json = {};
    let headers: Headers | undefined;
    for (let i = 0; i < 6; i += 1) {
      const res = await api.call('GET', '/api/v1/user/profile', { token: owner.token });
      statuses.push(res.status);
      last = res.body;
      headers = res.headers;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { retry_after: expect.any(Number) } });
    expect(last.error.details.retry_after).toBeGreaterThanOrEqual(1);
    expect(last.error.details.retry_after).toBeLessThanOrEqual(60);
    expect(headers?.get('retry-after')).toBe(String(last.error.details.retry_after));
    expect(headers?.get('x-ratelimit-limit')).toBe('5');
    const other = await api.otherOrganization();
    expect((await api.call('GET', '/api/v1/user/profile', { token: other.token })).status).toBe(200);
  });
});
