import { asOrgId, hashApiKey } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

const PROVIDER_KEY = 'sk-mock-provider-key';
const OWNER = { email: 'expiry-owner@example.com', password: 'expiry-owner-password-1' };
const DAY = 86_400_000;

/**
 * Gateway keys with `expires_at`: created over the organization API, accepted until then on every
 * surface that takes gateway keys (proxy, /v1/models, approval polling, gateway admin, organization
 * API), refused after with 401 GW_AUTH_002 from the cached record; rotation keeps the expiry and
 * never extends the old key past it.
 */
describe('gateway key expiry', () => {
  let mock: MockProvider;
  let service: TestService;
  let token: string;
  let orgId: string;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    service = await bootService(SERVICE, {
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      OPENAI_BASE_URL: `${mock.url}/v1`,
      BOOTSTRAP_ADMIN_EMAIL: OWNER.email,
      BOOTSTRAP_ADMIN_PASSWORD: OWNER.password,
      BOOTSTRAP_ORG_PLAN: 'enterprise',
    });
    const login = await call('org-api', 'POST', '/api/v1/auth/login', { body: OWNER });
    token = login.body.access_token;
    orgId = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).org_id;
  });
  afterAll(async () => {
    await service.stop();
    await mock.close();
  });

  async function call(surface: 'gateway' | 'org-api', method: string, path: string, options: { body?: unknown; key?: string; bearer?: string } = {}) {
    const headers: Record<string, string> = { 'X-Provider-Key': PROVIDER_KEY };
    if (options.key) headers['X-SVC-API-Key'] = options.key;
    const bearer = options.bearer ?? (options.key ? undefined : token);
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${service.urls[surface]}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers };
  }

  const createKey = (body: Json) => call('org-api', 'POST', '/api/v1/platform/api-keys', { body: { scopes: ['gateway:write', 'gateway:read', 'admin:read', 'keys:read'], ...body } });
  const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();

  /** Every surface that accepts gateway keys, with the status a live key gets. */
  const uses = (key: string) => ({
    proxy: call('gateway', 'POST', '/v1/chat/completions', { key, body: { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] } }),
    models: call('gateway', 'GET', '/v1/models', { key }),
    approval: call('gateway', 'GET', '/v1/approvals/apr_unknown/status', { key }),
    admin: call('gateway', 'GET', '/gateway/admin/policies', { key }),
    org: call('org-api', 'GET', '/api/v1/platform/api-keys', { key }),
  });
  const statuses = async (key: string) => {
    const answers = uses(key);
    const out: Record<string, number> = {};
    for (const [name, answer] of Object.entries(answers)) out[name] = (await answer).status;
    return out;
  };

  it('works until expires_at, then is refused with 401 GW_AUTH_002 everywhere, from the cached record', async () => {
    const created = await createKey({ name: 'short-lived', expires_at: ahead(2_000) });
    expect(created.status).toBe(201);
    const { key, expires_at: expiresAt } = created.body;
    expect(Object.keys(created.body)).toEqual(expect.arrayContaining(['id', 'name', 'key', 'scopes', 'created_at', 'expires_at']));
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());

    expect(await statuses(key)).toEqual({ proxy: 200, models: 200, approval: 404, admin: 200, org: 200 });

    // No lookup on the hot path: the refusal comes from the record cached by the uses above (5 s TTL).
    const repos = service.runtime.repositories;
    const findByHash = repos.apiKeys.findByHash.bind(repos.apiKeys);
    let lookups = 0;
    repos.apiKeys.findByHash = (hash: string) => {
      if (hash === hashApiKey(key)) lookups++;
      return findByHash(hash);
    };
    try {
      await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50));
      const answers = uses(key);
      const expected = {
        message: `This API key expired at ${expiresAt}.`,
        type: 'authentication_error',
        code: 'invalid_api_key',
        gateway_error_code: 'GW_AUTH_002',
        remediation: 'Create a new key with POST /api/v1/platform/api-keys (optionally with a later expires_at).',
      };
      for (const name of ['proxy', 'models', 'approval', 'admin'] as const) {
        const answer = await answers[name];
        expect({ name, status: answer.status, error: answer.body.error }).toMatchObject({ name, status: 401, error: expected });
      }
      // The key was identified: the proxy names its organization on the refusal (and files it there).
      expect((await answers.proxy).headers.get('x-gateway-org')).toBe(orgId);
      const org = await answers.org;
      expect({ status: org.status, code: org.body.error?.code, message: org.body.error?.message }).toEqual({ status: 401, code: 'UNAUTHORIZED', message: expected.message });
      expect(lookups).toBe(0);
    } finally {
      repos.apiKeys.findByHash = findByHash;
    }
    // Dashboard tokens are unaffected.
    expect((await call('gateway', 'GET', '/gateway/admin/policies')).status).toBe(200);

    // The listing and the key itself show it; a key without one shows null.
    const plain = await createKey({ name: 'forever', expires_at: null });
    expect(plain.body.expires_at).toBeNull();
    const list = await call('org-api', 'GET', '/api/v1/platform/api-keys?limit=100');
    const byName = Object.fromEntries((list.body.items as Json[]).map((item) => [item.name, item.expires_at]));
    expect(byName).toMatchObject({ 'short-lived': expiresAt, forever: null });
    expect((await call('org-api', 'GET', `/api/v1/platform/api-keys/${created.body.id}`)).body.expires_at).toBe(expiresAt);

    // An expired key cannot be brought back by rotating it.
    const rotate = await call('gateway', 'POST', `/gateway/admin/keys/${created.body.id}/rotate`, { body: { expires_at: ahead(DAY) } });
    expect({ status: rotate.status, code: rotate.body.error?.code }).toEqual({ status: 409, code: 'invalid_state' });
  });

  const badValues: [string, unknown, string][] = [
    ['past', '2020-01-01T00:00:00Z', 'must be in the future'],
    ['not a date', 'next tuesday', 'must be an ISO 8601 timestamp with a time zone'],
    ['no time zone', '2031-01-01T00:00:00', 'must be an ISO 8601 timestamp with a time zone'],
    ['a day the month lacks', '2031-02-30T00:00:00Z', 'must be an ISO 8601 timestamp with a time zone'],
    ['wrong type', 1_900_000_000, 'must be an ISO 8601 timestamp with a time zone'],
    ['too far', new Date(Date.now() + 3651 * DAY).toISOString(), 'must be at most 3650 days'],
  ];

  it.each(badValues)('refuses expires_at %s on POST /api/v1/platform/api-keys (VALIDATION_ERROR naming it), creating nothing', async (_label, value, message) => {
    const count = async () => (await service.runtime.repositories.apiKeys.list(asOrgId(orgId), { limit: 1000 })).total;
    const before = await count();
    const res = await createKey({ name: 'bad-expiry', expires_at: value });
    expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({ status: 400, code: 'VALIDATION_ERROR', param: 'expires_at' });
    expect(res.body.error.message).toContain(`expires_at ${message}`);
    expect(await count()).toBe(before);
  });

  it.each(badValues)('refuses expires_at %s on the gateway admin rotate (invalid_request naming it), rotating nothing', async (_label, value, message) => {
    const created = await createKey({ name: `rotate-bad-${Math.random().toString(36).slice(2)}` });
    const res = await call('gateway', 'POST', `/gateway/admin/keys/${created.body.id}/rotate`, { body: { expires_at: value } });
    expect({ status: res.status, type: res.body.error?.type, param: res.body.error?.param }).toEqual({ status: 400, type: 'invalid_request_error', param: 'expires_at' });
    expect(res.body.error.message).toContain(`expires_at ${message}`);
    expect((await service.runtime.repositories.apiKeys.findById(asOrgId(orgId), created.body.id))?.replaced_by).toBeNull();
  });

  it('rotation keeps the expiry unless given a new one, and the grace period never outlives the old key', async () => {
    const expiresAt = ahead(3_600_000);
    const old = await createKey({ name: 'rotating', expires_at: expiresAt });
    const kept = await call('gateway', 'POST', `/gateway/admin/keys/${old.body.id}/rotate`, { body: { grace_period_hours: 24 } });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ expires_at: expiresAt, previous_key_expires_at: expiresAt, grace_period_hours: 24 });
    const listed = await call('org-api', 'GET', `/api/v1/platform/api-keys/${old.body.id}`);
    expect(listed.body).toMatchObject({ grace_until: expiresAt, expires_at: expiresAt });

    const later = ahead(30 * DAY);
    const moved = await call('gateway', 'POST', `/gateway/admin/keys/${kept.body.id}/rotate`, { body: { grace_period_hours: 1, expires_at: later } });
    expect(moved.body.expires_at).toBe(later);
    const never = await call('gateway', 'POST', `/gateway/admin/keys/${moved.body.id}/rotate`, { body: { expires_at: null } });
    expect(never.body.expires_at).toBeNull();
    expect((await call('gateway', 'GET', '/gateway/admin/policies', { key: never.body.key })).status).toBe(200);
  });
});
