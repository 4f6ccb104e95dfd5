import { asOrgId, hashApiKey } from '@svc/domain';
import type { TestService } from '@svc/testing';
import { Json, Standalone } from './standalone.helpers';

const OWNER = { email: 'expiry-owner@example.com', password: 'expiry-owner-password-1' };
const DAY = 86_400_000;

/**
 * Gateway keys with `expires_at`: created over the organization API, accepted until then on every
 * surface that takes gateway keys (proxy, /v1/models, approval polling, gateway admin, organization
 * API), refused after with 401 GW_AUTH_002 from the cached record; rotation keeps the expiry and
 * never extends the old key past it.
 */
describe('gateway key expiry', () => {
  let env: Standalone;
  let service: TestService;
  let orgId: string;

  beforeAll(async () => {
    env = await Standalone.boot(OWNER, 'enterprise');
    ({ service, orgId } = env);
  });
  afterAll(() => env.stop());

  const call = (...args: Parameters<Standalone['call']>) => env.call(...args);

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
  describe('a key cannot mint a key that outlives it', () => {
    const count = async () => (await service.runtime.repositories.apiKeys.list(asOrgId(orgId), { limit: 1000 })).total;
    const minterScopes = ['keys:write', 'admin:write', 'gateway:write', 'gateway:read', 'admin:read', 'keys:read'];
    const minter = async (name: string, expiresAt: string | null) => {
      const res = await createKey({ name, scopes: minterScopes, expires_at: expiresAt });
      expect(res.status).toBe(201);
      return res.body as Json;
    };
    const createWith = (key: string, body: Json) => call('org-api', 'POST', '/api/v1/platform/api-keys', { key, body: { scopes: ['gateway:write'], ...body } });
    const rotateWith = (id: string, body: Json, key?: string) => call('gateway', 'POST', `/gateway/admin/keys/${id}/rotate`, { key, body });

    it('on POST /api-keys: within its lifetime accepted, left out defaults to its expiry, null or later refused 403 FORBIDDEN creating nothing', async () => {
      const own = ahead(3_600_000);
      const caller = await minter('minter-create', own);

      const within = await createWith(caller.key, { name: 'minted-within', expires_at: ahead(1_800_000) });
      expect(within.status).toBe(201);
      expect(Date.parse(within.body.expires_at)).toBeLessThan(Date.parse(own));
      const defaulted = await createWith(caller.key, { name: 'minted-default' });
      expect({ status: defaulted.status, expires_at: defaulted.body.expires_at }).toEqual({ status: 201, expires_at: own });
      expect((await call('org-api', 'GET', `/api/v1/platform/api-keys/${defaulted.body.id}`)).body.expires_at).toBe(own);
      const same = await createWith(caller.key, { name: 'minted-same', expires_at: own });
      expect({ status: same.status, expires_at: same.body.expires_at }).toEqual({ status: 201, expires_at: own });

      const before = await count();
      for (const [label, value] of [['null', null], ['later', ahead(2 * 3_600_000)], ['a millisecond later', new Date(Date.parse(own) + 1).toISOString()]] as const) {
        const refused = await createWith(caller.key, { name: `minted-${label}`, expires_at: value });
        expect({ label, status: refused.status, code: refused.body.error?.code, details: refused.body.error?.details }).toEqual({
          label,
          status: 403,
          code: 'FORBIDDEN',
          details: { param: 'expires_at', caller_expires_at: own },
        });
        expect(refused.body.error.message).toContain('expires_at');
        expect(refused.body.error.message).toContain(own);
      }
      expect(await count()).toBe(before);

      // A key that never expires, and a dashboard user, are unaffected.
      const forever = await minter('minter-forever', null);
      const fromForever = await createWith(forever.key, { name: 'minted-by-forever', expires_at: null });
      expect({ status: fromForever.status, expires_at: fromForever.body.expires_at }).toEqual({ status: 201, expires_at: null });
      expect((await createWith(forever.key, { name: 'minted-by-forever-default' })).body.expires_at).toBeNull();
      const fromDashboard = await call('org-api', 'POST', '/api/v1/platform/api-keys', { body: { name: 'minted-by-dashboard', scopes: ['gateway:write'] } });
      expect({ status: fromDashboard.status, expires_at: fromDashboard.body.expires_at }).toEqual({ status: 201, expires_at: null });
    });

    it("on rotate: the replacement's expiry (inherited or given) is bounded by the calling key's, null or later refused 403 insufficient_lifetime", async () => {
      const own = ahead(3_600_000);
      const caller = await minter('minter-rotate', own);
      const target = await createKey({ name: 'rotate-target' });
      expect(target.body.expires_at).toBeNull();

      // Inherited "never" is capped at the caller's expiry.
      const capped = await rotateWith(target.body.id, { grace_period_hours: 0 }, caller.key);
      expect({ status: capped.status, expires_at: capped.body.expires_at }).toEqual({ status: 200, expires_at: own });

      for (const [label, value] of [['null', null], ['later', ahead(2 * 3_600_000)]] as const) {
        const refused = await rotateWith(capped.body.id, { expires_at: value }, caller.key);
        expect({ label, status: refused.status, type: refused.body.error?.type, code: refused.body.error?.code, param: refused.body.error?.param }).toEqual({
          label,
          status: 403,
          type: 'permission_error',
          code: 'insufficient_lifetime',
          param: 'expires_at',
        });
        expect(refused.body.error.message).toContain('expires_at');
        expect(refused.body.error.message).toContain(own);
        expect((await service.runtime.repositories.apiKeys.findById(asOrgId(orgId), capped.body.id))?.replaced_by).toBeNull();
      }

      const earlier = ahead(1_800_000);
      const within = await rotateWith(capped.body.id, { grace_period_hours: 0, expires_at: earlier }, caller.key);
      expect({ status: within.status, expires_at: within.body.expires_at }).toEqual({ status: 200, expires_at: earlier });
      // An inherited expiry already within the caller's is kept.
      const kept = await rotateWith(within.body.id, { grace_period_hours: 0 }, caller.key);
      expect({ status: kept.status, expires_at: kept.body.expires_at }).toEqual({ status: 200, expires_at: earlier });

      // A dashboard user is unaffected.
      const never = await rotateWith(kept.body.id, { expires_at: null });
      expect({ status: never.status, expires_at: never.body.expires_at }).toEqual({ status: 200, expires_at: null });
    });
  });
});
