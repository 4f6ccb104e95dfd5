import { asOrgId, openWebhookUrl, sealWebhookUrl } from '@svc/domain';
import { AdminHarness, CallOptions, gatewayError, Json, Reply, startAdmin } from './admin-harness';

/**
 * SPEC.md's conflict examples served by the gateway admin service: `/v1/admin/api-keys` (list,
 * create, delete by id) and `/v1/admin/webhooks` (list, update by id), through the organization
 * API's services, answered in the gateway error format and the admin conflict shape.
 */
describe('gateway admin: /v1/admin/api-keys and /v1/admin/webhooks', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdmin();
  });
  afterAll(() => h.stop());

  /** Every answer of these routes: never a 5xx. */
  async function call(method: string, path: string, options?: CallOptions): Promise<Reply> {
    const reply = await h.call(method, path, options);
    expect({ method, path, status: reply.status < 500 ? 'not 5xx' : reply.text }).toEqual({ method, path, status: 'not 5xx' });
    return reply;
  }

  describe('api keys', () => {
    it('creates a key (201, plaintext once), lists metadata only, and the new key authenticates', async () => {
      const created = await call('POST', '/v1/admin/api-keys', { body: { name: 'ci-reader', scopes: ['admin:read'] } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'ci-reader',
        key: expect.stringMatching(/^svc_/),
        key_prefix: expect.any(String),
        scopes: ['admin:read'],
        ip_allowlist: [],
        team_id: null,
        expires_at: null,
        created_at: expect.any(String),
      });
      const list = await call('GET', '/v1/admin/api-keys', { key: created.body.key });
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ total: expect.any(Number), offset: 0, limit: 20 });
      const mine = (list.body.items as Json[]).find((item) => item.id === created.body.id);
      expect(mine).toMatchObject({ name: 'ci-reader', status: 'active', scopes: ['admin:read'], last_four: created.body.key.slice(-4) });
      expect(list.text).not.toContain(created.body.key);
      for (const item of list.body.items as Json[]) expect(Object.keys(item)).not.toEqual(expect.arrayContaining(['key']));
      expect((list.body.items as Json[]).map((item) => item.id)).not.toContain(h.other.adminKey._id);
    });

    it('a duplicate name is 409 resource_already_exists in the admin conflict shape, naming the key in the way', async () => {
      const first = await call('POST', '/v1/admin/api-keys', { body: { name: 'deploy-bot', scopes: ['admin:read'] } });
      expect(first.status).toBe(201);
      const again = await call('POST', '/v1/admin/api-keys', { body: { name: 'deploy-bot', scopes: ['admin:write'] } });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        error: {
          code: 'resource_already_exists',
          message: 'An API key named "deploy-bot" already exists',
          request_id: again.headers.get('x-svc-request-id'),
          resource_type: 'api_key',
          conflicting_id: first.body.id,
        },
      });
      // Another organization may use the name.
      expect((await call('POST', '/v1/admin/api-keys', { key: h.other.admin, body: { name: 'deploy-bot', scopes: ['admin:read'] } })).status).toBe(201);
    });

    it('refuses bad bodies with 400 in the gateway format', async () => {
      const cases: [CallOptions, string, string | null, RegExp][] = [
        [{ body: { name: 123, scopes: ['admin:read'] } }, 'invalid_request', 'name', /name must be a string/],
        [{ body: { name: 'x', scopes: 'admin:read' } }, 'invalid_request', 'scopes', /scopes must be an array/],
        [{ body: { name: 'x', scopes: [] } }, 'invalid_request', 'scopes', /scopes/],
        [{ body: { scopes: ['admin:read'] } }, 'invalid_request', 'name', /name is required/],
        [{ body: { name: 'x', scopes: ['admin:read'], owner: 'me' } }, 'invalid_request', 'owner', /owner/],
        [{ body: { name: 'x', scopes: ['admin:read', 'nope:never'] } }, 'invalid_request', 'scopes', /Unknown scopes: nope:never/],
        [{ body: { name: '   ', scopes: ['admin:read'] } }, 'invalid_request', 'name', /name must not be blank/],
        [{ body: { name: 'x', scopes: ['admin:read'], ip_allowlist: ['not-an-ip'] } }, 'invalid_request', 'ip_allowlist', /not-an-ip/],
        [{ rawBody: '{"name": "x", "scopes": [' }, 'invalid_json', null, /./],
        [{ rawBody: '' }, 'invalid_request', 'name', /name is required/],
      ];
      for (const [options, code, param, message] of cases) {
        const reply = await call('POST', '/v1/admin/api-keys', options);
        const error = gatewayError(reply, 400, code);
        expect({ body: options.body ?? options.rawBody, type: error.type, param: error.param, message: error.message }).toEqual({
          body: options.body ?? options.rawBody,
          type: 'invalid_request_error',
          param,
          message: expect.stringMatching(message),
        });
      }
    });

    it('a key grants only scopes it holds and no later expiry than its own (403 in the gateway format)', async () => {
      const admin = await h.newKey(h.org.id, ['admin:read', 'admin:write']);
      const beyond = await call('POST', '/v1/admin/api-keys', { key: admin.plaintext, body: { name: 'proxy-key', scopes: ['gateway:write'] } });
      expect(gatewayError(beyond, 403, 'insufficient_scope')).toMatchObject({ type: 'permission_error', message: expect.stringContaining('gateway:write') });
    });

    it('needs credentials, admin:read to list and admin:write to create or revoke; dashboard tokens by role', async () => {
      const reader = await h.newKey(h.org.id, ['admin:read']);
      gatewayError(await call('GET', '/v1/admin/api-keys', { headers: {}, key: '' }), 401, 'invalid_api_key');
      gatewayError(await call('POST', '/v1/admin/api-keys', { key: reader.plaintext, body: { name: 'no', scopes: ['admin:read'] } }), 403, 'insufficient_scope');
      gatewayError(await call('DELETE', `/v1/admin/api-keys/${reader.key._id}`, { key: reader.plaintext }), 403, 'insufficient_scope');
      const proxyOnly = await h.newKey(h.org.id, ['gateway:write']);
      gatewayError(await call('GET', '/v1/admin/api-keys', { key: proxyOnly.plaintext }), 403, 'insufficient_scope');

      const headers = { 'x-org-id': h.org.id };
      expect((await call('GET', '/v1/admin/api-keys', { token: h.token(h.org.id, 'Member'), headers })).status).toBe(200);
      gatewayError(await call('POST', '/v1/admin/api-keys', { token: h.token(h.org.id, 'Member'), headers, body: { name: 'm', scopes: ['admin:read'] } }), 403, 'insufficient_scope');
      const owner = await call('POST', '/v1/admin/api-keys', { token: h.token(h.org.id, 'Owner'), headers, body: { name: 'from-dashboard', scopes: ['gateway:write'] } });
      expect(owner.status).toBe(201);
      gatewayError(await call('GET', '/v1/admin/api-keys', { token: h.token(h.org.id, 'Owner'), headers: { 'x-org-id': h.other.id } }), 403);
    });

    it('DELETE revokes the key at once (204); unknown and other organizations’ ids are 404 not_found', async () => {
      const victim = await h.newKey(h.org.id, ['admin:read']);
      expect((await call('GET', '/v1/admin/api-keys', { key: victim.plaintext })).status).toBe(200);
      const revoked = await call('DELETE', `/v1/admin/api-keys/${victim.key._id}`);
      expect({ status: revoked.status, text: revoked.text }).toEqual({ status: 204, text: '' });
      gatewayError(await call('GET', '/v1/admin/api-keys', { key: victim.plaintext }), 401, 'invalid_api_key');
      expect((await h.repos.apiKeys.findById(asOrgId(h.org.id), victim.key._id))?.status).toBe('revoked');
      expect((await call('DELETE', `/v1/admin/api-keys/${victim.key._id}`)).status).toBe(204);

      gatewayError(await call('DELETE', '/v1/admin/api-keys/key_doesnotexist'), 404, 'not_found');
      gatewayError(await call('DELETE', `/v1/admin/api-keys/${h.other.adminKey._id}`), 404, 'not_found');
      expect((await h.repos.apiKeys.findById(asOrgId(h.other.id), h.other.adminKey._id))?.status).toBe('active');
    });
  });

  describe('webhooks', () => {
    const seed = async (orgId: string, url: string) =>
      h.repos.webhooks.create(asOrgId(orgId), {
        ...sealWebhookUrl(h.service.runtime.cipher, orgId, url),
        events: ['budget.exceeded'],
        secret: h.service.runtime.cipher.encrypt(orgId, 'whsec_stored_secret_value'),
        description: null,
      });
    /** The receiver URL as stored (sealed at rest), opened. */
    const storedUrl = async (orgId: string, id: string) => {
      const stored = await h.repos.webhooks.findById(asOrgId(orgId), id);
      return stored ? openWebhookUrl(h.service.runtime.cipher, orgId, stored) : null;
    };

    it('lists the organization’s webhooks, never their secrets nor another organization’s', async () => {
      const mine = await seed(h.org.id, 'https://8.8.8.8/list/a');
      const theirs = await seed(h.other.id, 'https://8.8.8.8/list/theirs');
      const list = await call('GET', '/v1/admin/webhooks', { key: (await h.newKey(h.org.id, ['admin:read'])).plaintext });
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ total: expect.any(Number), offset: 0, limit: 20 });
      const ids = (list.body.items as Json[]).map((item) => item.id);
      expect(ids).toContain(mine._id);
      expect(ids).not.toContain(theirs._id);
      expect((list.body.items as Json[]).find((item) => item.id === mine._id)).toMatchObject({ url: 'https://8.8.8.8/list/a', events: ['budget.exceeded'], status: 'active' });
      expect(list.text).not.toContain('secret');
    });

    it('PUT and PATCH both update only the fields sent', async () => {
      const hook = await seed(h.org.id, 'https://8.8.8.8/partial/a');
      const patched = await call('PATCH', `/v1/admin/webhooks/${hook._id}`, { body: { events: ['budget.exceeded', 'approval.required'] } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ id: hook._id, url: 'https://8.8.8.8/partial/a', events: ['budget.exceeded', 'approval.requested'] });
      const put = await call('PUT', `/v1/admin/webhooks/${hook._id}`, { body: { url: 'https://8.8.8.8/partial/b' } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ id: hook._id, url: 'https://8.8.8.8/partial/b', events: ['budget.exceeded', 'approval.requested'] });
      expect(put.text).not.toContain('secret');
      expect((await call('PATCH', `/v1/admin/webhooks/${hook._id}`, { body: {} })).body).toMatchObject({ url: 'https://8.8.8.8/partial/b' });
    });

    it('a URL another webhook of the organization has is 409 webhook_endpoint_duplicate in the admin conflict shape', async () => {
      const taken = await seed(h.org.id, 'https://8.8.8.8/dup/taken');
      const hook = await seed(h.org.id, 'https://8.8.8.8/dup/mine');
      for (const method of ['PATCH', 'PUT']) {
        const reply = await call(method, `/v1/admin/webhooks/${hook._id}`, { body: { url: 'https://8.8.8.8/dup/taken' } });
        expect(reply.status).toBe(409);
        expect(reply.body).toEqual({
          error: {
            code: 'webhook_endpoint_duplicate',
            message: 'A webhook for this URL already exists',
            request_id: reply.headers.get('x-svc-request-id'),
            resource_type: 'webhook',
            conflicting_id: taken._id,
          },
        });
      }
      expect(await storedUrl(h.org.id, hook._id)).toBe('https://8.8.8.8/dup/mine');
      // Another organization's webhook with that URL is no conflict.
      const theirs = await seed(h.other.id, 'https://8.8.8.8/dup/theirs');
      expect((await call('PATCH', `/v1/admin/webhooks/${theirs._id}`, { key: h.other.admin, body: { url: 'https://8.8.8.8/dup/taken' } })).status).toBe(200);
    });

    it('refuses bad updates with 400 in the gateway format; private and plain-http URLs as on the organization API', async () => {
      const hook = await seed(h.org.id, 'https://8.8.8.8/bad/a');
      const cases: [CallOptions, string, string | null, RegExp][] = [
        [{ body: { url: 'https://10.1.2.3/hook' } }, 'url_not_allowed', 'url', /10\.1\.2\.3/],
        [{ body: { url: 'https://127.0.0.1/hook' } }, 'url_not_allowed', 'url', /127\.0\.0\.1/],
        [{ body: { url: 'http://8.8.8.8/hook' } }, 'url_not_allowed', 'url', /https/],
        [{ body: { url: 42 } }, 'invalid_request', 'url', /url must be a string/],
        [{ body: { events: 'budget.exceeded' } }, 'invalid_request', 'events', /events must be an array/],
        [{ body: { events: ['nope.never'] } }, 'invalid_request', 'events', /Unknown event types: nope\.never/],
        [{ body: { url: null } }, 'invalid_request', 'url', /url must not be null/],
        [{ body: { colour: 'blue' } }, 'invalid_request', 'colour', /colour/],
        [{ rawBody: '{"url": ' }, 'invalid_json', null, /./],
      ];
      for (const [options, code, param, message] of cases) {
        const reply = await call('PATCH', `/v1/admin/webhooks/${hook._id}`, options);
        const error = gatewayError(reply, 400, code);
        expect({ body: options.body ?? options.rawBody, type: error.type, param: error.param, message: error.message }).toEqual({
          body: options.body ?? options.rawBody,
          type: 'invalid_request_error',
          param,
          message: expect.stringMatching(message),
        });
      }
      expect(await storedUrl(h.org.id, hook._id)).toBe('https://8.8.8.8/bad/a');
    });

    it('unknown and other organizations’ ids are 404 not_found; updates need admin:write, lists admin:read', async () => {
      const theirs = await seed(h.other.id, 'https://8.8.8.8/tenant/theirs');
      gatewayError(await call('PATCH', '/v1/admin/webhooks/whk_doesnotexist', { body: { events: ['budget.exceeded'] } }), 404, 'not_found');
      gatewayError(await call('PUT', `/v1/admin/webhooks/${theirs._id}`, { body: { url: 'https://8.8.8.8/tenant/stolen' } }), 404, 'not_found');
      expect(await storedUrl(h.other.id, theirs._id)).toBe('https://8.8.8.8/tenant/theirs');

      const reader = await h.newKey(h.org.id, ['admin:read']);
      gatewayError(await call('PATCH', `/v1/admin/webhooks/${theirs._id}`, { key: reader.plaintext, body: {} }), 403, 'insufficient_scope');
      gatewayError(await call('GET', '/v1/admin/webhooks', { key: (await h.newKey(h.org.id, ['billing:read'])).plaintext }), 403, 'insufficient_scope');
      gatewayError(await call('GET', '/v1/admin/webhooks', { key: 'svc_sk_not_a_real_key_at_all_000000000000' }), 401, 'invalid_api_key');
      expect((await call('GET', '/v1/admin/webhooks', { token: h.token(h.org.id, 'Member'), headers: { 'x-org-id': h.org.id } })).status).toBe(200);
    });

    it('every /v1/admin route, keys and webhooks, refuses a query parameter it does not take (400 naming it, nothing changed); ?api_key= is taken', async () => {
      const org = asOrgId(h.org.id);
      const victim = await h.newKey(h.org.id, ['admin:read'], { name: 'query-victim' });
      const hook = await seed(h.org.id, 'https://8.8.8.8/query/a');
      const rows: [method: string, path: string, body?: Json][] = [
        ['GET', '/v1/admin/api-keys'],
        ['POST', '/v1/admin/api-keys', { name: 'query-new', scopes: ['admin:read'] }],
        ['DELETE', `/v1/admin/api-keys/${victim.key._id}`],
        ['GET', '/v1/admin/webhooks'],
        ['PUT', `/v1/admin/webhooks/${hook._id}`, { url: 'https://8.8.8.8/query/b' }],
        ['PATCH', `/v1/admin/webhooks/${hook._id}`, { events: ['approval.requested'] }],
      ];
      // Keys by id, name and status (the admin key's `last_used_at` moves with every call).
      const state = async () => ({
        keys: (await h.repos.apiKeys.list(org, { limit: 1000 })).items.map(({ _id, name, status }) => ({ _id, name, status })),
        hook: await h.repos.webhooks.findById(org, hook._id),
      });
      const before = await state();
      for (const [method, path, body] of rows) {
        for (const [name, value] of [['org_id', h.other.id], ['org_id', h.org.id], ['colour', 'red']]) {
          const error = gatewayError(await call(method, `${path}?${name}=${value}`, { body }), 400, 'invalid_request');
          expect({ method, path, error }).toEqual({ method, path, error: { type: 'invalid_request_error', code: 'invalid_request', param: name, message: `property ${name} should not exist` } });
        }
        const viaQuery = await fetch(`${h.url}${path}?api_key=${encodeURIComponent(h.org.admin)}&colour=red`, {
          method,
          ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        });
        expect({ method, path, status: viaQuery.status, body: await viaQuery.json() }).toEqual({
          method,
          path,
          status: 400,
          body: { error: { type: 'invalid_request_error', code: 'invalid_request', param: 'colour', message: 'property colour should not exist' } },
        });
      }
      expect(await state()).toEqual(before);
    });
  });
});
