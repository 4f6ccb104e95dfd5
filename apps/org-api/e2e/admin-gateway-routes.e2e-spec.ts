import { asOrgId } from '@svc/domain';
import { Json, OrgApi, Reply, Session } from './org-api.helpers';

/**
 * SPEC.md "Gateway admin endpoints", "Also referenced": `PATCH /api/v1/admin/gateway/policy/{org_id}`
 * (the organization's gateway policy, partially) and `POST /api/v1/admin/keys` (`name`, `org_id`),
 * over real HTTP, with the organization API's auth, context and error format.
 */
describe('org API: PATCH /admin/gateway/policy/{org_id} and POST /admin/keys', () => {
  let api: OrgApi;
  let owner: Session;
  let other: Session;
  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
    other = await api.otherOrganization();
  });
  afterAll(() => api.stop());

  const policyPath = (orgId: string) => `/api/v1/admin/gateway/policy/${orgId}`;
  const patch = (body: unknown, options: { session?: Session; orgId?: string; key?: string } = {}) =>
    api.call('PATCH', policyPath(options.orgId ?? owner.orgId), { token: options.key ? undefined : (options.session ?? owner).token, key: options.key, body });
  const createKey = (body: unknown, options: { session?: Session; key?: string } = {}) =>
    api.call('POST', '/api/v1/admin/keys', { token: options.key ? undefined : (options.session ?? owner).token, key: options.key, body });
  /** A request with the body sent as given (malformed JSON, no body with a JSON content type). */
  const raw = async (method: string, path: string, body: string | undefined, token = owner.token): Promise<Reply> => {
    const res = await fetch(`${api.base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, headers: res.headers };
  };
  /** The organization API's error format, with nothing else at the top level. */
  const expectError = (res: Reply, status: number, code: string, details: Json = {}) => {
    expect({ status: res.status, keys: Object.keys(res.body) }).toEqual({ status, keys: ['error'] });
    expect(res.body.error).toMatchObject({ code, message: expect.any(String), details: expect.objectContaining(details) });
  };
  const storedPolicy = (orgId: string) => api.repos.policies.get(asOrgId(orgId));

  it('documents both routes in the OpenAPI document, each starting with the roles and scopes it needs', async () => {
    const doc = (await (await fetch(`${api.base}/docs/json`)).json()) as Json;
    expect(doc.paths['/api/v1/admin/gateway/policy/{org_id}'].patch.description).toMatch(/^Roles: Owner, Admin\. API key scopes: admin:write\./);
    expect(doc.paths['/api/v1/admin/keys'].post.description).toMatch(/^Roles: Owner, Admin\. API key scopes: keys:write or admin:write\./);
  });

  describe('PATCH /api/v1/admin/gateway/policy/{org_id}', () => {
    it('changes only the fields sent, normalizes rate_limit_rpm to rpm_limit, answers the policy view and publishes `policy`', async () => {
      const published: string[] = [];
      const unsubscribe = api.service.runtime.invalidation.subscribe('policy', (orgId) => published.push(orgId));
      try {
        const first = await patch({ rpm_limit: 120, allowed_models: ['gpt-4o-mini', ' gpt-4o-mini '] });
        expect(first.status).toBe(200);
        expect(first.body).toMatchObject({
          org_id: owner.orgId,
          tier: 'growth',
          custom: { rpm_limit: 120, allowed_models: ['gpt-4o-mini'] },
          effective: { rpm_limit: 120, allowed_models: ['gpt-4o-mini'], daily_budget: first.body.tier_defaults.daily_budget },
          overridden_fields: ['rpm_limit', 'allowed_models'],
          has_custom_policy: true,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        });
        const second = await patch({ rate_limit_rpm: 75, daily_budget: 12.5, org_id: owner.orgId });
        expect(second.status).toBe(200);
        expect(second.body.custom).toEqual({ rpm_limit: 75, allowed_models: ['gpt-4o-mini'], daily_budget: 12.5 });
        expect(second.body.custom.rate_limit_rpm).toBeUndefined();
        expect(await storedPolicy(owner.orgId)).toMatchObject({ rpm_limit: 75, daily_budget: 12.5, allowed_models: ['gpt-4o-mini'] });
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(published.filter((id) => id === owner.orgId).length).toBeGreaterThanOrEqual(2);
      } finally {
        unsubscribe();
      }
    });

    it('sets and removes the reasoning cap (null removes it); {} changes nothing', async () => {
      const set = await patch({ max_reasoning_tokens: 4000 });
      expect(set.body.effective.max_reasoning_tokens).toBe(4000);
      const cleared = await patch({ max_reasoning_tokens: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.effective.max_reasoning_tokens).toBeNull();
      expect(cleared.body.overridden_fields).not.toContain('max_reasoning_tokens');
      expect((await storedPolicy(owner.orgId))?.max_reasoning_tokens).toBeUndefined();
      const before = await storedPolicy(owner.orgId);
      const none = await patch({});
      expect(none.status).toBe(200);
      expect(none.body.custom).toEqual(cleared.body.custom);
      expect((await storedPolicy(owner.orgId))?.updated_at).toEqual(before?.updated_at);
    });

    it.each([
      ['a string RPM', { rpm_limit: '100' }, 'rpm_limit'],
      ['a fractional RPM', { rpm_limit: 1.5 }, 'rpm_limit'],
      ['a zero RPM', { rate_limit_rpm: 0 }, 'rate_limit_rpm'],
      ['both RPM spellings, different values', { rpm_limit: 10, rate_limit_rpm: 20 }, 'rate_limit_rpm'],
      ['a negative budget', { daily_budget: -1 }, 'daily_budget'],
      ['a string boolean', { pii_scan_enabled: 'yes' }, 'pii_scan_enabled'],
      ['an unknown PII action', { pii_action: 'shrug' }, 'pii_action'],
      ['a model list with a number', { allowed_models: ['gpt-4o', 5] }, 'allowed_models[1]'],
      ['an unknown field', { rpm: 10 }, 'rpm'],
      ['a non-string org_id', { org_id: 42 }, 'org_id'],
      ['null for a field', { rpm_limit: null }, 'rpm_limit'],
    ])('400 VALIDATION_ERROR for %s, nothing written', async (_name, body, param) => {
      const before = await storedPolicy(owner.orgId);
      const res = await patch(body);
      expectError(res, 400, 'VALIDATION_ERROR', { param });
      expect(res.body.error.message).toContain(param);
      expect(res.body.error.details.errors).toContainEqual({ field: param, message: expect.any(String) });
      expect(await storedPolicy(owner.orgId)).toEqual(before);
    });

    it.each([
      ['null', 'null'],
      ['an array', '[{"rpm_limit": 10}]'],
      ['a string', '"rpm_limit"'],
      ['no body', undefined],
    ])('400 naming `body` for %s', async (_name, text) => {
      const res = await raw('PATCH', policyPath(owner.orgId), text);
      expectError(res, 400, 'VALIDATION_ERROR', { param: 'body' });
      expect(res.body.error.message).toBe('The request body must be a JSON object');
    });

    it('400 INVALID_JSON for malformed JSON', async () => {
      expectError(await raw('PATCH', policyPath(owner.orgId), '{"rpm_limit": 10,'), 400, 'INVALID_JSON');
    });

    it("never touches another organization's policy: its id in the path or the body is 404, X-Org-ID of another is 403", async () => {
      const before = await storedPolicy(other.orgId);
      expectError(await patch({ rpm_limit: 1 }, { orgId: other.orgId }), 404, 'NOT_FOUND');
      expectError(await patch({ rpm_limit: 1, org_id: other.orgId }), 404, 'NOT_FOUND');
      expectError(await patch({ rpm_limit: 1 }, { orgId: 'org_does_not_exist' }), 404, 'NOT_FOUND');
      const header = await api.call('PATCH', policyPath(owner.orgId), { token: owner.token, body: { rpm_limit: 1 }, headers: { 'x-org-id': other.orgId } });
      expectError(header, 403, 'FORBIDDEN', { reason: 'org_mismatch' });
      expect(await storedPolicy(other.orgId)).toEqual(before);
      expect((await storedPolicy(owner.orgId))?.rpm_limit).not.toBe(1);
    });

    it('needs credentials (401), Owner or Admin (403 for Manager and Member), or a key with admin:write', async () => {
      expectError(await api.call('PATCH', policyPath(owner.orgId), { body: { rpm_limit: 5 } }), 401, 'UNAUTHORIZED');
      for (const role of ['Manager', 'Member'] as const) {
        const user = await api.userWithRole(owner.orgId, role);
        expectError(await patch({ rpm_limit: 5 }, { session: user }), 403, 'FORBIDDEN');
      }
      const admin = await api.userWithRole(owner.orgId, 'Admin');
      expect((await patch({ rpm_limit: 90 }, { session: admin })).status).toBe(200);
      const reader = await api.createKey(owner, ['admin:read', 'keys:write']);
      expectError(await patch({ rpm_limit: 5 }, { key: reader.key }), 403, 'FORBIDDEN', { required_scopes: ['admin:write'] });
      const writer = await api.createKey(owner, ['admin:write']);
      const byKey = await patch({ rpm_limit: 95 }, { key: writer.key });
      expect({ status: byKey.status, rpm: byKey.body.custom.rpm_limit }).toEqual({ status: 200, rpm: 95 });
    });
  });

  describe('POST /api/v1/admin/keys', () => {
    it('creates a key like the platform route (201, same fields); without scopes it gets gateway:write', async () => {
      const res = await createKey({ name: 'admin-default', org_id: owner.orgId });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^key_/),
        name: 'admin-default',
        key: expect.stringMatching(/^svc_sk_[A-Za-z0-9]{40}$/),
        scopes: ['gateway:write'],
        created_at: expect.any(String),
      });
      const stored = await api.repos.apiKeys.findById(asOrgId(owner.orgId), res.body.id);
      expect(stored).toMatchObject({ name: 'admin-default', scopes: ['gateway:write'], status: 'active' });
      const listed = await api.call('GET', `/api/v1/platform/api-keys/${res.body.id}`, { token: owner.token });
      expect(listed.body).toMatchObject({ id: res.body.id, scopes: ['gateway:write'] });
      const withScopes = await createKey({ name: 'admin-scoped', org_id: owner.orgId, scopes: ['gateway_proxy', 'costs:read'], team_id: 'team-a' });
      expect(withScopes.status).toBe(201);
      expect(withScopes.body).toMatchObject({ scopes: ['gateway:write', 'costs:read'], team_id: 'team-a' });
      // The new key works on this API with what it was given.
      const profile = await api.call('GET', '/api/v1/user/profile', { key: withScopes.body.key });
      expect(profile.status).toBe(200);
    });

    it('409 resource_already_exists for a current key of the same name, as on the platform route', async () => {
      const first = await createKey({ name: 'dup-admin', org_id: owner.orgId });
      const again = await createKey({ name: 'dup-admin', org_id: owner.orgId, scopes: ['gateway:read'] });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'resource_already_exists', resource_type: 'api_key', conflicting_id: first.body.id });
      const platform = await api.call('POST', '/api/v1/platform/api-keys', { token: owner.token, body: { name: 'dup-admin', scopes: ['gateway:read'] } });
      expect(platform.status).toBe(409);
    });

    it.each([
      ['no name', { org_id: 'ORG' }, 'name'],
      ['no org_id', { name: 'k' }, 'org_id'],
      ['a numeric org_id', { name: 'k', org_id: 7 }, 'org_id'],
      ['a numeric name', { name: 5, org_id: 'ORG' }, 'name'],
      ['null scopes', { name: 'k', org_id: 'ORG', scopes: null }, 'scopes'],
      ['empty scopes', { name: 'k', org_id: 'ORG', scopes: [] }, 'scopes'],
      ['scopes as a string', { name: 'k', org_id: 'ORG', scopes: 'gateway:write' }, 'scopes'],
      ['an unknown scope', { name: 'k', org_id: 'ORG', scopes: ['root:all'] }, 'scopes'],
      ['an unknown field', { name: 'k', org_id: 'ORG', label: 'x' }, 'label'],
      ['a past expires_at', { name: 'k', org_id: 'ORG', expires_at: '2000-01-01T00:00:00Z' }, 'expires_at'],
    ])('400 VALIDATION_ERROR for %s, nothing created', async (_name, body, param) => {
      const { total } = await api.repos.apiKeys.list(asOrgId(owner.orgId), { offset: 0, limit: 1 });
      const res = await createKey(JSON.parse(JSON.stringify(body).replace('"ORG"', JSON.stringify(owner.orgId))));
      expectError(res, 400, 'VALIDATION_ERROR', { param });
      expect((await api.repos.apiKeys.list(asOrgId(owner.orgId), { offset: 0, limit: 1 })).total).toBe(total);
    });

    it.each([
      ['null', 'null', 'body'],
      ['an array', '[]', 'body'],
    ])('400 naming `body` for %s', async (_name, text, param) => {
      expectError(await raw('POST', '/api/v1/admin/keys', text), 400, 'VALIDATION_ERROR', { param });
    });

    it('400 naming the required fields for no body', async () => {
      const res = await raw('POST', '/api/v1/admin/keys', undefined);
      expectError(res, 400, 'VALIDATION_ERROR', { param: 'org_id' });
      expect(res.body.error.message).toEqual(expect.stringContaining('org_id is required'));
      expect(res.body.error.message).toEqual(expect.stringContaining('name is required'));
    });

    it('400 INVALID_JSON for malformed JSON', async () => {
      expectError(await raw('POST', '/api/v1/admin/keys', '{"name": "k", "org_id"'), 400, 'INVALID_JSON');
    });

    it("another organization's org_id is 404 and creates nothing there or here; X-Org-ID of another is 403", async () => {
      const count = async (orgId: string) => (await api.repos.apiKeys.list(asOrgId(orgId), { offset: 0, limit: 1 })).total;
      const [mine, theirs] = [await count(owner.orgId), await count(other.orgId)];
      expectError(await createKey({ name: 'cross', org_id: other.orgId }), 404, 'NOT_FOUND');
      expectError(await createKey({ name: 'cross', org_id: 'org_does_not_exist' }), 404, 'NOT_FOUND');
      const header = await api.call('POST', '/api/v1/admin/keys', { token: owner.token, body: { name: 'cross', org_id: owner.orgId }, headers: { 'x-org-id': other.orgId } });
      expectError(header, 403, 'FORBIDDEN', { reason: 'org_mismatch' });
      expect([await count(owner.orgId), await count(other.orgId)]).toEqual([mine, theirs]);
    });

    it('needs credentials (401), Owner or Admin, or a key with keys:write or admin:write that holds the scopes it grants', async () => {
      expectError(await api.call('POST', '/api/v1/admin/keys', { body: { name: 'anon', org_id: owner.orgId } }), 401, 'UNAUTHORIZED');
      const member = await api.userWithRole(owner.orgId, 'Member');
      expectError(await createKey({ name: 'by-member', org_id: owner.orgId }, { session: member }), 403, 'FORBIDDEN');
      const reader = await api.createKey(owner, ['keys:read']);
      expectError(await createKey({ name: 'by-reader', org_id: owner.orgId }, { key: reader.key }), 403, 'FORBIDDEN');
      // keys:write may create keys, but not grant gateway:write (the default) without holding it.
      const keyWriter = await api.createKey(owner, ['keys:write']);
      expectError(await createKey({ name: 'beyond', org_id: owner.orgId }, { key: keyWriter.key }), 403, 'FORBIDDEN', { scopes: ['gateway:write'] });
      const ok = await createKey({ name: 'by-key-writer', org_id: owner.orgId, scopes: ['keys:read'] }, { key: keyWriter.key });
      expect(ok.status).toBe(201);
    });
  });
});
