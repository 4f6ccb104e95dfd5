import { asOrgId } from '@svc/domain';
import { startMockProvider } from '@svc/mock-provider';
import { bootService, TestService, UNSERVED_V1_ADMIN_CALLS } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

const OWNER = { email: 'v1-admin-owner@example.com', password: 'v1-admin-owner-password-1' };

/**
 * `npm start` serves the gateway admin's `/v1/admin/api-keys` and `/v1/admin/webhooks` on the
 * proxy's port: the static routes win over the proxy's `/v1/:provider/*` (the proxy hook does not
 * take them), their JSON bodies are parsed (the proxy's unread-body prefix `/v1/` excepts
 * `/v1/admin/`), and they share the organization API's data and rules.
 */
describe('npm start: /v1/admin routes on the gateway port', () => {
  let service: TestService;
  let token: string;
  let orgId: string;

  beforeAll(async () => {
    service = await bootService(SERVICE, {
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      BOOTSTRAP_ADMIN_EMAIL: OWNER.email,
      BOOTSTRAP_ADMIN_PASSWORD: OWNER.password,
    });
    const login = await call('org-api', 'POST', '/api/v1/auth/login', { body: OWNER, bearer: null });
    token = login.body.access_token;
    orgId = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).org_id;
  });
  afterAll(() => service.stop());

  async function call(surface: 'gateway' | 'org-api', method: string, path: string, options: { body?: unknown; raw?: string; key?: string; bearer?: string | null } = {}) {
    const headers: Record<string, string> = {};
    if (options.key) headers['X-SVC-API-Key'] = options.key;
    const bearer = options.bearer === undefined ? (options.key ? undefined : token) : options.bearer;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (bearer && surface === 'gateway') headers['X-Org-ID'] = orgId;
    if (options.body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json';
    const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const res = await fetch(`${service.urls[surface]}${path}`, { method, headers, body: payload });
    const text = await res.text();
    expect({ path, status: res.status < 500 ? 'not 5xx' : text }).toEqual({ path, status: 'not 5xx' });
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers, text };
  }

  it('creates, lists and revokes gateway keys on the gateway port (not the proxy catch-all)', async () => {
    const created = await call('gateway', 'POST', '/v1/admin/api-keys', { body: { name: 'all-in-one-admin', scopes: ['admin:read', 'admin:write'] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'all-in-one-admin', key: expect.stringMatching(/^svc_/), scopes: ['admin:read', 'admin:write'] });
    // The new key works on the same routes, and the organization API sees the same key.
    const list = await call('gateway', 'GET', '/v1/admin/api-keys', { key: created.body.key });
    expect(list.status).toBe(200);
    expect((list.body.items as Json[]).map((item) => item.name)).toContain('all-in-one-admin');
    expect(list.text).not.toContain(created.body.key);
    const viaOrgApi = await call('org-api', 'GET', `/api/v1/platform/api-keys/${created.body.id}`);
    expect(viaOrgApi.body).toMatchObject({ id: created.body.id, status: 'active' });

    const revoked = await call('gateway', 'DELETE', `/v1/admin/api-keys/${created.body.id}`);
    expect(revoked.status).toBe(204);
    expect((await call('org-api', 'GET', `/api/v1/platform/api-keys/${created.body.id}`)).body.status).toBe('revoked');
    expect((await call('gateway', 'GET', '/v1/admin/api-keys', { key: created.body.key })).body.error).toMatchObject({ code: 'invalid_api_key' });
  });

  it('answers bad input in the gateway format: malformed JSON, unknown fields, unknown ids, no credentials', async () => {
    const malformed = await call('gateway', 'POST', '/v1/admin/api-keys', { raw: '{"name": "x",' });
    expect({ status: malformed.status, code: malformed.body.error?.code }).toEqual({ status: 400, code: 'invalid_json' });
    const unknown = await call('gateway', 'POST', '/v1/admin/api-keys', { body: { name: 'x', scopes: ['admin:read'], colour: 'blue' } });
    expect({ status: unknown.status, code: unknown.body.error?.code, param: unknown.body.error?.param }).toEqual({ status: 400, code: 'invalid_request', param: 'colour' });
    const missing = await call('gateway', 'DELETE', '/v1/admin/api-keys/key_doesnotexist');
    expect({ status: missing.status, body: missing.body }).toEqual({
      status: 404,
      // `param` names the path parameter, as /gateway/admin 404s name theirs.
      body: { error: { message: 'API key not found', type: 'not_found_error', code: 'not_found', param: 'id' } },
    });
    const anonymous = await call('gateway', 'GET', '/v1/admin/webhooks', { bearer: null });
    expect({ status: anonymous.status, code: anonymous.body.error?.code, gateway_error_code: anonymous.body.error?.gateway_error_code }).toEqual({
      status: 401,
      code: 'invalid_api_key',
      gateway_error_code: 'GW_AUTH_001',
    });
  });

  it('409 shapes: a duplicate key name, and a webhook URL another webhook has', async () => {
    const first = await call('gateway', 'POST', '/v1/admin/api-keys', { body: { name: 'twice', scopes: ['admin:read'] } });
    const again = await call('gateway', 'POST', '/v1/admin/api-keys', { body: { name: 'twice', scopes: ['admin:read'] } });
    expect({ status: again.status, body: again.body }).toEqual({
      status: 409,
      body: {
        error: {
          code: 'resource_already_exists',
          message: 'An API key named "twice" already exists',
          request_id: again.headers.get('x-svc-request-id'),
          resource_type: 'api_key',
          conflicting_id: first.body.id,
        },
      },
    });

    const taken = await call('org-api', 'POST', '/api/v1/admin/webhooks', { body: { url: 'https://8.8.8.8/standalone/taken', events: ['budget.exceeded'] } });
    const hook = await call('org-api', 'POST', '/api/v1/admin/webhooks', { body: { url: 'https://8.8.8.8/standalone/mine', events: ['budget.exceeded'] } });
    expect([taken.status, hook.status]).toEqual([201, 201]);
    const listed = await call('gateway', 'GET', '/v1/admin/webhooks');
    expect((listed.body.items as Json[]).map((item) => item.id)).toEqual(expect.arrayContaining([taken.body.id, hook.body.id]));
    expect(listed.text).not.toContain(taken.body.secret);

    const duplicate = await call('gateway', 'PATCH', `/v1/admin/webhooks/${hook.body.id}`, { body: { url: 'https://8.8.8.8/standalone/taken' } });
    expect({ status: duplicate.status, body: duplicate.body }).toEqual({
      status: 409,
      body: {
        error: {
          code: 'webhook_endpoint_duplicate',
          message: 'A webhook for this URL already exists',
          request_id: duplicate.headers.get('x-svc-request-id'),
          resource_type: 'webhook',
          conflicting_id: taken.body.id,
        },
      },
    });
    const updated = await call('gateway', 'PUT', `/v1/admin/webhooks/${hook.body.id}`, { body: { events: ['approval.requested'] } });
    expect(updated.body).toMatchObject({ id: hook.body.id, url: 'https://8.8.8.8/standalone/mine', events: ['approval.requested'] });
    expect((await call('org-api', 'GET', `/api/v1/admin/webhooks/${hook.body.id}`)).body.events).toEqual(['approval.requested']);
    const privateUrl = await call('gateway', 'PATCH', `/v1/admin/webhooks/${hook.body.id}`, { body: { url: 'https://192.168.1.10/hook' } });
    expect({ status: privateUrl.status, code: privateUrl.body.error?.code, param: privateUrl.body.error?.param }).toEqual({ status: 400, code: 'url_not_allowed', param: 'url' });
  });

  it.each(UNSERVED_V1_ADMIN_CALLS)('%s %s, which no admin route serves: 404 not_found in the gateway format as the gateway admin alone answers it, never the proxy catch-all', async (method, path) => {
    // No credentials, an unknown gateway key, the owner's dashboard token: the same answer, before
    // any authentication (the catch-all never takes `admin` for a provider).
    for (const credentials of [{ bearer: null }, { key: 'svc_sk_not_a_real_key_at_all_000000000000', bearer: null }, {}]) {
      const res = await call('gateway', method, path, { ...credentials, ...(method === 'GET' ? {} : { body: { url: 'https://8.8.8.8/x' } }) });
      expect({ status: res.status, allow: res.headers.get('allow'), error: res.body.error }).toEqual({
        status: 404,
        allow: null,
        error: {
          message: expect.stringContaining(`No route ${method} ${path}. /v1/admin is the gateway admin's, never a provider`),
          type: 'not_found_error',
          code: 'not_found',
          param: null,
          remediation: expect.any(String),
        },
      });
      expect(res.headers.get('x-svc-request-id')).toBeTruthy();
    }
  });

  it('an id over the path segment limit on an admin route with its own method: 414 uri_too_long, as the gateway admin alone answers it', async () => {
    const long = 'k'.repeat(600);
    for (const [method, path] of [['DELETE', `/v1/admin/api-keys/${long}`], ['PATCH', `/v1/admin/webhooks/${long}`]]) {
      const res = await call('gateway', method, path, method === 'PATCH' ? { body: { events: ['budget.exceeded'] } } : {});
      expect({ method, status: res.status, code: res.body.error?.code }).toEqual({ method, status: 414, code: 'uri_too_long' });
    }
  });

  it('forwards nothing below /v1/admin even to a provider target stored under the id `admin`, and leaves the rest of /v1 to the proxy', async () => {
    // A new target cannot take the id (nor a name it would be derived from).
    for (const body of [{ name: 'Admin lab', provider_id: 'admin', base_url: 'https://8.8.8.8/v1' }, { name: 'Admin', base_url: 'https://8.8.8.8/v1' }]) {
      const refused = await call('gateway', 'POST', '/gateway/admin/provider-targets', { body });
      expect({ status: refused.status, code: refused.body.error?.code, param: refused.body.error?.param }).toEqual({ status: 400, code: 'provider_id_reserved', param: 'provider_id' });
    }
    const upstream = await startMockProvider({ port: 0 });
    try {
      // One stored before the id was reserved.
      const repos = service.runtime.repositories;
      await repos.providerTargets.create(asOrgId(orgId), { name: 'Admin lab', provider_id: 'admin', base_url: `${upstream.url}/v1`, models: ['admin-model'] });
      await service.runtime.invalidation.publish('provider-target', orgId);
      const reader = await call('gateway', 'POST', '/v1/admin/api-keys', { body: { name: 'models-reader', scopes: ['gateway:read', 'gateway:write'] } });
      for (const [method, path] of [['DELETE', '/v1/admin/webhooks'], ['GET', '/v1/admin/files'], ['POST', '/v1/admin/chat/completions']]) {
        const body = method === 'GET' ? undefined : { model: 'admin-model', messages: [{ role: 'user', content: 'hi' }] };
        const res = await call('gateway', method, path, { key: reader.body.key, bearer: null, body });
        expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({ method, path, status: 404, code: 'not_found' });
      }
      expect(upstream.requests).toHaveLength(0);
      const models = await call('gateway', 'GET', '/v1/models', { key: reader.body.key, bearer: null });
      expect({ status: models.status, object: models.body.object }).toEqual({ status: 200, object: 'list' });
      expect((models.body.data as Json[]).map((entry) => String(entry.id)).filter((id) => id.startsWith('admin/'))).toEqual([]);
    } finally {
      await upstream.close();
    }
  });
});
