import { asOrgId, hashApiKey } from '@svc/domain';
import { AdminHarness, gatewayError, startAdmin } from './admin-harness';

describe('gateway admin: key rotation', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdmin();
  });
  afterAll(() => h.stop());

  it('returns the new plaintext key once; the old key keeps working for 24 h with deprecation headers', async () => {
    const old = await h.newKey(h.org.id, ['admin:read'], { name: 'ci-bot' });
    const res = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'ci-bot', scopes: ['admin:read'], previous_key_id: old.key._id, grace_period_hours: 24 });
    expect(res.body.key).toMatch(/^svc_sk_[A-Za-z0-9]{40}$/);
    expect(res.body.id).not.toBe(old.key._id);
    const expires = Date.parse(res.body.previous_key_expires_at) - Date.now();
    expect(expires).toBeGreaterThan(23.9 * 3_600_000);
    expect(expires).toBeLessThanOrEqual(24 * 3_600_000);

    const stored = await h.repos.apiKeys.findById(asOrgId(h.org.id), res.body.id);
    expect(stored?.key_hash).toBe(hashApiKey(res.body.key));
    expect(JSON.stringify(stored)).not.toContain(res.body.key);

    const withOld = await h.call('GET', '/gateway/admin/policies', { key: old.plaintext });
    expect(withOld.status).toBe(200);
    expect(withOld.headers.get('x-svc-key-deprecated')).toBe('true');
    expect(Number(withOld.headers.get('x-svc-grace-remaining-hours'))).toBeGreaterThan(23.9);
    const withNew = await h.call('GET', '/gateway/admin/policies', { key: res.body.key });
    expect(withNew.status).toBe(200);
    expect(withNew.headers.get('x-svc-key-deprecated')).toBeNull();
  });

  it('grace_period_hours 0 stops the old key at once (401 key_rotated naming the replacement)', async () => {
    const old = await h.newKey(h.org.id, ['admin:read']);
    expect((await h.call('GET', '/gateway/admin/policies', { key: old.plaintext })).status).toBe(200);
    const res = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate`, { body: { grace_period_hours: 0 } });
    expect(res.body.grace_period_hours).toBe(0);
    const refused = gatewayError(await h.call('GET', '/gateway/admin/policies', { key: old.plaintext }), 401, 'key_rotated');
    expect(refused.message).toContain(res.body.id);
    expect((await h.call('GET', '/gateway/admin/policies', { key: res.body.key })).status).toBe(200);
  });

  it('takes grace_period_hours from the query when there is no body, up to 168', async () => {
    const old = await h.newKey(h.org.id, ['admin:read']);
    const res = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate?grace_period_hours=168`);
    expect(res.status).toBe(200);
    expect(res.body.grace_period_hours).toBe(168);
  });

  it('takes the JSON content type with an empty body as no body', async () => {
    const old = await h.newKey(h.org.id, ['admin:read']);
    const res = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate?grace_period_hours=2`, { rawBody: '' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ previous_key_id: old.key._id, grace_period_hours: 2 });
    gatewayError(await h.call('POST', `/gateway/admin/keys/${res.body.id}/rotate`, { rawBody: '{' }), 400, 'invalid_json');
    expect((await h.repos.apiKeys.findById(asOrgId(h.org.id), res.body.id))?.replaced_by).toBeNull();
  });

  it.each([[169], [-1], ['2'], [true], [null]])('refuses grace_period_hours %j with a 400', async (value) => {
    const old = await h.newKey(h.org.id, ['admin:read']);
    const error = gatewayError(await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate`, { body: { grace_period_hours: value } }), 400);
    expect(error.param).toBe('grace_period_hours');
    expect((await h.repos.apiKeys.findById(asOrgId(h.org.id), old.key._id))?.replaced_by).toBeNull();
  });

  it('takes only a plain decimal grace_period_hours in the query (fractions too): 0x10, 1e1, spaces, +, the empty value are a 400 and rotate nothing', async () => {
    // Number() reads `0x10` as 16, `1e1` as 10, ` 1` as 1 and `` as 0 (which would stop the old key at once).
    for (const value of ['0x10', '0b11', '0o7', '1e1', '1E1', '%201', '1%20', '+5', '', '.5', '5.', '1_0', 'Infinity', 'NaN', '١']) {
      const old = await h.newKey(h.org.id, ['admin:read']);
      const res = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate?grace_period_hours=${value}`);
      expect({ value, status: res.status, error: res.body.error }).toEqual({
        value,
        status: 400,
        error: { message: 'grace_period_hours must be a number in plain decimal notation (digits, an optional fraction)', type: 'invalid_request_error', param: 'grace_period_hours', code: 'invalid_request' },
      });
      expect((await h.repos.apiKeys.findById(asOrgId(h.org.id), old.key._id))?.replaced_by).toBeNull();
    }
    for (const [value, hours] of [['1.5', 1.5], ['0', 0], ['007', 7], ['168.0', 168], ['0.25', 0.25]] as const) {
      const old = await h.newKey(h.org.id, ['admin:read']);
      const res = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate?grace_period_hours=${value}`);
      expect({ value, status: res.status, hours: res.body.grace_period_hours }).toEqual({ value, status: 200, hours });
    }
    for (const value of ['-1', '168.5']) {
      const old = await h.newKey(h.org.id, ['admin:read']);
      const error = gatewayError(await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate?grace_period_hours=${value}`), 400, 'invalid_request');
      expect(error.param).toBe('grace_period_hours');
    }
  });

  it('takes a fraction as a JSON number in the body, never a string spelling', async () => {
    const old = await h.newKey(h.org.id, ['admin:read']);
    const res = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate`, { body: { grace_period_hours: 1.5 } });
    expect({ status: res.status, hours: res.body.grace_period_hours }).toEqual({ status: 200, hours: 1.5 });
    for (const value of ['0x10', '1.5', '16']) {
      const fresh = await h.newKey(h.org.id, ['admin:read']);
      const error = gatewayError(await h.call('POST', `/gateway/admin/keys/${fresh.key._id}/rotate`, { body: { grace_period_hours: value } }), 400, 'invalid_request');
      expect({ value, param: error.param }).toEqual({ value, param: 'grace_period_hours' });
    }
  });

  it('409 for a key already rotated or revoked, in the conflict shape with request_id', async () => {
    const old = await h.newKey(h.org.id, ['admin:read']);
    const first = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate`);
    const again = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'key_already_rotated', replaced_by: first.body.id, key_id: old.key._id });
    expect(again.body.error.request_id).toBe(again.headers.get('x-svc-request-id'));

    const revoked = await h.newKey(h.org.id, ['admin:read']);
    await h.repos.apiKeys.revoke(asOrgId(h.org.id), revoked.key._id);
    const res = await h.call('POST', `/gateway/admin/keys/${revoked.key._id}/rotate`);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_state', status: 'revoked' });
  });

  it('a key caller can only rotate keys whose scopes it has itself (403 otherwise: no plaintext for more power)', async () => {
    const writer = await h.newKey(h.org.id, ['admin:write']);
    const proxyKey = await h.newKey(h.org.id, ['gateway:write', 'admin:read']);
    const refused = gatewayError(await h.call('POST', `/gateway/admin/keys/${proxyKey.key._id}/rotate`, { key: writer.plaintext }), 403, 'insufficient_scope');
    expect(refused).toMatchObject({ param: 'key_id', message: expect.stringContaining('gateway:write') });
    expect(refused.message).not.toContain('admin:read');
    expect(JSON.stringify(refused)).not.toMatch(/svc_sk_/);
    expect((await h.repos.apiKeys.findById(asOrgId(h.org.id), proxyKey.key._id))?.replaced_by).toBeNull();

    const reader = await h.newKey(h.org.id, ['admin:read']);
    expect((await h.call('POST', `/gateway/admin/keys/${reader.key._id}/rotate`, { key: writer.plaintext })).status).toBe(200);
    const self = await h.call('POST', `/gateway/admin/keys/${writer.key._id}/rotate`, { key: writer.plaintext });
    expect(self.status).toBe(200);
    expect(self.body.scopes).toEqual(['admin:write']);
    const rotated = await h.call('POST', `/gateway/admin/keys/${proxyKey.key._id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.scopes).toEqual(['gateway:write', 'admin:read']);
  });

  it.each(['Owner', 'Admin'] as const)('a dashboard %s may rotate any key of the organization', async (role) => {
    const wide = await h.newKey(h.org.id, ['gateway:write', 'admin:write', 'billing:read', 'runner:exec']);
    const res = await h.call('POST', `/gateway/admin/keys/${wide.key._id}/rotate`, { token: h.token(h.org.id, role) });
    expect(res.status).toBe(200);
    expect(res.body.previous_key_id).toBe(wide.key._id);
  });

  it('another organization’s key id and unknown ids are 404; readers get 403', async () => {
    const theirs = await h.newKey(h.other.id, ['admin:read']);
    expect(gatewayError(await h.call('POST', `/gateway/admin/keys/${theirs.key._id}/rotate`), 404, 'not_found').param).toBe('key_id');
    expect((await h.repos.apiKeys.findById(asOrgId(h.other.id), theirs.key._id))?.replaced_by).toBeNull();
    gatewayError(await h.call('POST', '/gateway/admin/keys/key_unknown/rotate'), 404, 'not_found');
    const reader = await h.newKey(h.org.id, ['admin:read', 'billing:read']);
    gatewayError(await h.call('POST', `/gateway/admin/keys/${reader.key._id}/rotate`, { key: reader.plaintext }), 403, 'insufficient_scope');
  });
});

describe('gateway admin: provider secrets', () => {
  let h: AdminHarness;
  const published: string[] = [];
  beforeAll(async () => {
    h = await startAdmin();
    h.service.runtime.invalidation.subscribe('provider-secret', (orgId) => published.push(orgId));
  });
  afterAll(() => h.stop());

  it('stores a key encrypted and answers metadata only; plaintext never comes back', async () => {
    const plaintext = 'sk-live-abcdefghijklmnop1234';
    const res = await h.call('POST', '/gateway/admin/secrets', { body: { provider: 'openai', plaintext_key: plaintext, label: 'prod' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^sec_/),
      provider: 'openai',
      label: 'prod',
      last_four: '1234',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      rotated_at: null,
    });
    expect(res.text).not.toContain('abcdefgh');
    expect(published).toContain(h.org.id);
    const stored = await h.repos.providerSecrets.findByProvider(asOrgId(h.org.id), 'openai');
    expect(JSON.stringify(stored)).not.toContain(plaintext);
    expect(h.decrypt(h.org.id, stored)).toBe(plaintext);

    const list = await h.call('GET', '/gateway/admin/secrets');
    expect(list.body.items).toEqual([res.body]);
    expect(list.text).not.toMatch(/ciphertext|"iv"|"tag"|abcdefgh/);
  });

  it('accepts `secret` for plaintext_key and canonical provider ids for aliases', async () => {
    const res = await h.call('POST', '/gateway/admin/secrets', { body: { provider: 'google', secret: 'AIza-gemini-key-5678' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ provider: 'gemini', last_four: '5678', label: null });
    expect((await h.call('DELETE', '/gateway/admin/secrets/google')).status).toBe(204);
  });

  it('409 secret_already_stored for a second key of the provider', async () => {
    const res = await h.call('POST', '/gateway/admin/secrets', { body: { provider: 'OpenAI', plaintext_key: 'sk-another-key-0000' } });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({ code: 'secret_already_stored', message: expect.stringContaining('rotate'), request_id: res.headers.get('x-svc-request-id') });
  });

  it('rotate replaces the stored key (provider in the body); 404 when none is stored', async () => {
    const res = await h.call('POST', '/gateway/admin/secrets/rotate', { body: { provider: 'openai', plaintext_key: 'sk-rotated-key-9999' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: 'openai', last_four: '9999', label: 'prod', rotated_at: expect.any(String) });
    const stored = await h.repos.providerSecrets.findByProvider(asOrgId(h.org.id), 'openai');
    expect(h.decrypt(h.org.id, stored)).toBe('sk-rotated-key-9999');
    expect(gatewayError(await h.call('POST', '/gateway/admin/secrets/rotate', { body: { provider: 'anthropic', secret: 'sk-ant-xxxxxxxx' } }), 404).param).toBe('provider');
  });

  it('needs a body to store or rotate: an empty JSON body is a 400 naming provider', async () => {
    for (const path of ['/gateway/admin/secrets', '/gateway/admin/secrets/rotate']) {
      expect(gatewayError(await h.call('POST', path, { rawBody: '' }), 400, 'invalid_request').param).toBe('provider');
    }
  });

  it.each([
    [{ provider: 'nope', plaintext_key: 'sk-12345678' }, 'provider'],
    [{ provider: 'openai' }, 'plaintext_key'],
    [{ provider: 'openai', plaintext_key: '   ' }, 'plaintext_key'],
    [{ provider: 'openai', plaintext_key: 'sk-1' }, 'plaintext_key'],
    [{ provider: 'openai', plaintext_key: 'sk-12345678', secret: 'sk-87654321' }, 'secret'],
    [{ provider: 42, plaintext_key: 'sk-12345678' }, 'provider'],
    [{ provider: 'groq', plaintext_key: 'sk-12345678', owner: 'me' }, 'owner'],
    [{ provider: 'openai', plaintext_key: null }, 'plaintext_key'],
    [{ provider: 'openai', secret: null }, 'secret'],
    [{ provider: 'openai', plaintext_key: 'sk-12345678', label: 'l'.repeat(121) }, 'label'],
  ])('store %j is a 400 naming %s', async (body, param) => {
    expect(gatewayError(await h.call('POST', '/gateway/admin/secrets', { body }), 400).param).toBe(param);
    expect(gatewayError(await h.call('POST', '/gateway/admin/secrets/rotate', { body }), 400).param).toBe(param);
  });

  // The key is sent to the provider in an HTTP header: a line break, a control or a non-ASCII
  // character could never go out, so every proxied request would fail as an upstream error.
  it.each([
    ['plaintext_key', 'sk-live-abc\ndef-1234'],
    ['plaintext_key', 'sk-live-nul\u0000-1234'],
    ['plaintext_key', 'sk-live-ключ-1234'],
    ['secret', 'sk-live-clé-12345678'],
  ])('refuses a %s that cannot go in an HTTP header (%j): 400, nothing stored', async (field, value) => {
    const body = { provider: 'deepseek', [field]: value };
    const error = gatewayError(await h.call('POST', '/gateway/admin/secrets', { body }), 400, 'invalid_request');
    expect(error).toMatchObject({ type: 'invalid_request_error', param: field, message: expect.stringContaining('printable ASCII') });
    expect(await h.repos.providerSecrets.findByProvider(asOrgId(h.org.id), 'deepseek')).toBeNull();
    expect(gatewayError(await h.call('POST', '/gateway/admin/secrets/rotate', { body: { ...body, provider: 'openai' } }), 400).param).toBe(field);
  });

  it('keeps spaces and tabs inside a key (an HTTP header carries them)', async () => {
    const res = await h.call('POST', '/gateway/admin/secrets', { body: { provider: 'deepseek', plaintext_key: 'self hosted\tkey-1234' } });
    expect(res.status).toBe(201);
    expect(h.decrypt(h.org.id, await h.repos.providerSecrets.findByProvider(asOrgId(h.org.id), 'deepseek'))).toBe('self hosted\tkey-1234');
    expect((await h.call('DELETE', '/gateway/admin/secrets/deepseek')).status).toBe(204);
  });

  it('accepts the organization’s own provider targets as providers', async () => {
    await h.repos.providerTargets.create(asOrgId(h.org.id), { name: 'Lab', provider_id: 'lab-vllm', base_url: 'https://lab.example.com/v1' });
    const res = await h.call('POST', '/gateway/admin/secrets', { body: { provider: 'lab-vllm', plaintext_key: 'lab-key-abcd' } });
    expect(res.status).toBe(201);
    expect(gatewayError(await h.call('POST', '/gateway/admin/secrets', { key: h.other.admin, body: { provider: 'lab-vllm', plaintext_key: 'lab-key-abcd' } }), 400).param).toBe('provider');
  });

  it('keeps organizations apart: another organization neither lists, rotates nor deletes our secrets', async () => {
    const before = await h.repos.providerSecrets.findByProvider(asOrgId(h.org.id), 'openai');
    expect((await h.call('GET', '/gateway/admin/secrets', { key: h.other.admin })).body).toEqual({ items: [], total: 0 });
    const rotate = await h.call('POST', '/gateway/admin/secrets/rotate', { key: h.other.admin, body: { provider: 'openai', plaintext_key: 'sk-not-theirs-0000' } });
    expect(gatewayError(rotate, 404, 'not_found').param).toBe('provider');
    expect(gatewayError(await h.call('POST', '/gateway/admin/secrets/rotate', { key: h.other.admin, body: { provider: 'lab-vllm', plaintext_key: 'lab-key-9999' } }), 400).param).toBe('provider');
    expect(gatewayError(await h.call('DELETE', '/gateway/admin/secrets/openai', { key: h.other.admin }), 404).param).toBe('provider');
    const after = await h.repos.providerSecrets.findByProvider(asOrgId(h.org.id), 'openai');
    expect(after).toEqual(before);
    expect(await h.repos.providerSecrets.findByProvider(asOrgId(h.other.id), 'openai')).toBeNull();
  });

  it('DELETE revokes the stored key (204), then 404', async () => {
    published.length = 0;
    expect((await h.call('DELETE', '/gateway/admin/secrets/openai')).status).toBe(204);
    // The channel is the shared test Redis's: other test files' services publish on it too.
    expect(published).toContain(h.org.id);
    expect(published).not.toContain(h.other.id);
    expect(await h.repos.providerSecrets.findByProvider(asOrgId(h.org.id), 'openai')).toBeNull();
    gatewayError(await h.call('DELETE', '/gateway/admin/secrets/openai'), 404, 'not_found');
  });

  it('needs admin:write to change and admin:read to list', async () => {
    const reader = await h.newKey(h.org.id, ['admin:read']);
    const billing = await h.newKey(h.org.id, ['billing:read']);
    expect((await h.call('GET', '/gateway/admin/secrets', { key: reader.plaintext })).status).toBe(200);
    gatewayError(await h.call('GET', '/gateway/admin/secrets', { key: billing.plaintext }), 403, 'insufficient_scope');
    const body = { provider: 'mistral', plaintext_key: 'mistral-key-1234' };
    gatewayError(await h.call('POST', '/gateway/admin/secrets', { key: reader.plaintext, body }), 403, 'insufficient_scope');
    gatewayError(await h.call('POST', '/gateway/admin/secrets/rotate', { key: reader.plaintext, body }), 403, 'insufficient_scope');
    gatewayError(await h.call('DELETE', '/gateway/admin/secrets/mistral', { token: h.token(h.org.id, 'Operator') }), 403, 'insufficient_scope');
    expect((await h.call('POST', '/gateway/admin/secrets', { token: h.token(h.org.id, 'Owner'), body })).status).toBe(201);
  });
});
