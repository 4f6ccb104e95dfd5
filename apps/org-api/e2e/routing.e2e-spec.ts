import { Json, OrgApi, Session } from './org-api.helpers';

/**
 * docs/decisions-services.md "Trailing slash and GET /": the organization API answers a path written with a
 * trailing slash as the path without it (same route, same guard, same answer), and `GET /` describes
 * the service.
 */
describe('org API routing: trailing slash and GET /', () => {
  let api: OrgApi;
  let owner: Session;

  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
  });
  afterAll(() => api.stop());

  const strip = (body: Json) => JSON.parse(JSON.stringify(body, (key, value) => (key === 'timestamp' || key === 'uptime_seconds' ? undefined : value))) as Json;

  it.each(['/api/v1/admin/costs/budgets', '/api/v1/platform/api-keys', '/api/v1/admin/webhooks', '/api/v1/autopilot/templates', '/api/v1/health', '/api/v1/user/profile'])(
    'GET %s with a trailing slash answers as without it',
    async (path) => {
      const plain = await api.call('GET', path, { token: owner.token });
      const slash = await api.call('GET', `${path}/`, { token: owner.token });
      expect(plain.status).toBe(200);
      expect([slash.status, strip(slash.body)]).toEqual([plain.status, strip(plain.body)]);
    },
  );

  it('creates, reads, updates and deletes through paths with a trailing slash', async () => {
    const created = await api.call('POST', '/api/v1/admin/costs/budgets/', { token: owner.token, body: { name: 'slash budget', limit: 12 } });
    expect([created.status, created.body.name]).toEqual([200, 'slash budget']);
    const read = await api.call('GET', `/api/v1/admin/costs/budgets/${created.body.id}/`, { token: owner.token });
    expect([read.status, read.body.id]).toEqual([200, created.body.id]);
    const updated = await api.call('PUT', `/api/v1/admin/costs/budgets/${created.body.id}/`, { token: owner.token, body: { limit: 13 } });
    expect([updated.status, updated.body.limit]).toEqual([200, 13]);
    expect((await api.call('DELETE', `/api/v1/admin/costs/budgets/${created.body.id}/`, { token: owner.token })).status).toBe(204);
    expect((await api.call('GET', `/api/v1/admin/costs/budgets/${created.body.id}`, { token: owner.token })).status).toBe(404);
  });

  it('keeps authentication, validation and removed routes on the slash form', async () => {
    const anonymous = await api.call('GET', '/api/v1/admin/costs/budgets/');
    expect([anonymous.status, anonymous.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    const bad = await api.call('POST', '/api/v1/admin/costs/budgets/', { token: owner.token, body: { name: 'x', limit: -1 } });
    expect([bad.status, bad.body.error?.code, bad.body.error?.details?.param]).toEqual([400, 'VALIDATION_ERROR', 'limit']);
    const login = await api.call('POST', '/api/v1/auth/login/', { body: { email: 'owner@example.com', password: 'correct-horse-battery-staple' } });
    expect([login.status, login.body.token_type]).toEqual([200, 'bearer']);
    for (const path of ['/api/v1/admin/agents', '/api/v1/admin/agents/', '/api/v1/admin/agents/health/']) {
      expect([path, (await api.call('GET', path, { token: owner.token })).status]).toEqual([path, 410]);
    }
  });

  it('still answers 404 NOT_FOUND for paths no route serves, with or without the slash', async () => {
    for (const path of ['/api/v1/budgets/', '/api/v1/budgets', '/api/v1/admin/costs/budgets//', '/api/v1/nope/']) {
      const res = await api.call('GET', path, { token: owner.token });
      expect([path, res.status, res.body.error]).toEqual([path, 404, { code: 'NOT_FOUND', message: `No route GET ${path}; /docs lists every route`, details: {} }]);
    }
  });

  it('words a 404 for a method or path no route serves as the gateway does, without the query string, whatever the body', async () => {
    const cases: [string, string, string | undefined][] = [
      ['DELETE', '/api/v1/admin/costs/budgets', undefined],
      ['GET', '/api/v1/nope', undefined],
      ['POST', '/v1/chat/completions', '{"model": '],
      ['PUT', '/api/v1/platform/api-keys', '{"name": "x"}'],
    ];
    for (const [method, path, body] of cases) {
      const headers: Record<string, string> = { authorization: `Bearer ${owner.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
      const res = await fetch(`${api.base}${path}?token=secret-in-query`, { method, headers, body });
      expect([method, path, res.status, await res.json()]).toEqual([
        method,
        path,
        404,
        { error: { code: 'NOT_FOUND', message: `No route ${method} ${path}; /docs lists every route`, details: {} } },
      ]);
    }
  });

  it('answers 404 for a method or path no route serves whatever its content type (malformed ones too); a route that exists still refuses them with 415', async () => {
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', 'text', 'nonsense', ''];
    for (const contentType of types) {
      for (const [method, path] of [['POST', '/nope'], ['POST', '/api/v1/nope'], ['DELETE', '/api/v1/admin/costs/budgets'], ['PUT', '/api/v1/platform/api-keys']]) {
        const res = await fetch(`${api.base}${path}`, { method, headers: { authorization: `Bearer ${owner.token}`, 'content-type': contentType }, body: 'name=x' });
        expect([contentType, method, path, res.status, await res.json()]).toEqual([
          contentType,
          method,
          path,
          404,
          { error: { code: 'NOT_FOUND', message: `No route ${method} ${path}; /docs lists every route`, details: {} } },
        ]);
      }
      const routed = await fetch(`${api.base}/api/v1/admin/costs/budgets`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': contentType }, body: 'name=x' });
      expect([contentType, routed.status, ((await routed.json()) as Json).error?.code]).toEqual([contentType, 415, 'UNSUPPORTED_MEDIA_TYPE']);
    }
  });

  it('a path segment over 512 characters is 414 URI_TOO_LONG naming the limit', async () => {
    const res = await api.call('GET', `/api/v1/admin/costs/budgets/${'b'.repeat(600)}`, { token: owner.token });
    expect([res.status, res.body.error]).toEqual([414, { code: 'URI_TOO_LONG', message: 'A path segment is longer than the server accepts (at most 512 characters)', details: {} }]);
  });

  it('GET / describes the service publicly: version, docs, health and the main routes', async () => {
    const res = await api.call('GET', '/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ service: 'svc-org-api', status: 'ok', docs: '/docs', health: '/api/v1/health', liveness: '/health' });
    expect(res.body.version).toBe((await api.call('GET', '/api/v1/health')).body.version);
    expect(res.body.endpoints).toMatchObject({ login: 'POST /api/v1/auth/login', budgets: '/api/v1/admin/costs/budgets', api_keys: '/api/v1/platform/api-keys' });
    expect(JSON.stringify(res.body)).not.toContain(owner.orgId);
    // Each listed route exists: never the unknown-route 404 (`No route <METHOD> <path>`).
    for (const route of Object.values(res.body.endpoints as Record<string, string>)) {
      const [method, path] = route.includes(' ') ? route.split(' ') : ['GET', route];
      const answer = await api.call(method, path.replace('{org_id}', owner.orgId), { token: owner.token });
      expect([route, String(answer.body.error?.message ?? '').startsWith('No route ')]).toEqual([route, false]);
    }
  });
});
