import { asOrgId } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

/** A public address literal: no DNS needed, passes the outbound checks (nothing is ever sent there in these tests). */
const PUBLIC = 'https://93.184.216.34';

describe('gateway admin: provider targets', () => {
  let h: AdminHarness;
  const published: string[] = [];
  beforeAll(async () => {
    h = await startAdmin();
    h.service.runtime.invalidation.subscribe('provider-target', (orgId) => published.push(orgId));
  });
  afterAll(() => h.stop());

  const create = (body: Json, key?: string) => h.call('POST', '/gateway/admin/provider-targets', { body, key });

  it('creates a target: routing id from the name, key stored encrypted and never returned', async () => {
    const res = await create({ name: 'Lab vLLM', base_url: `${PUBLIC}/v1/`, api_key: 'lab-secret-key-7777', headers: { 'X-Team': 'ml' }, models: ['llama-3.1-8b'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^tgt_/),
      name: 'Lab vLLM',
      provider_id: 'lab-vllm',
      kind: 'openai_compatible',
      format: 'openai_compatible',
      base_url: `${PUBLIC}/v1`,
      api_base: `${PUBLIC}/v1`,
      has_api_key: true,
      api_key_last_four: '7777',
      headers: { 'x-team': 'ml' },
      enabled: true,
      models: ['llama-3.1-8b'],
      last_discovery_status: null,
    });
    expect(res.text).not.toContain('lab-secret');
    const stored = await h.repos.providerTargets.findById(asOrgId(h.org.id), res.body.id);
    expect(JSON.stringify(stored)).not.toContain('lab-secret');
    expect(h.decrypt(h.org.id, stored?.api_key)).toBe('lab-secret-key-7777');
    expect(published).toContain(h.org.id);
  });

  it('takes kind or format (openai_compatible | ollama) and an explicit provider_id', async () => {
    const ollama = await create({ name: 'Ollama box', base_url: 'http://93.184.216.34:11434', kind: 'ollama', provider_id: 'box' });
    expect(ollama.body).toMatchObject({ provider_id: 'box', kind: 'ollama', api_base: 'http://93.184.216.34:11434/v1', has_api_key: false });
    const bare = await create({ name: 'Bare host', base_url: PUBLIC, format: 'openai_compatible' });
    expect(bare.body.api_base).toBe(`${PUBLIC}/v1`);
    expect(gatewayError(await create({ name: 'Mixed', base_url: PUBLIC, kind: 'ollama', format: 'openai_compatible' }), 400).param).toBe('kind');
  });

  it('409 resource_already_exists for a taken name or provider_id', async () => {
    const first = (await h.call('GET', '/gateway/admin/provider-targets')).body.items.find((t: Json) => t.name === 'Lab vLLM');
    const byName = await create({ name: 'Lab vLLM', base_url: PUBLIC, provider_id: 'another' });
    expect(byName.status).toBe(409);
    expect(byName.body.error).toMatchObject({ code: 'resource_already_exists', resource_type: 'provider_target', conflicting_id: first.id, request_id: expect.stringMatching(/^gw_/) });
    const byRoute = await create({ name: 'Other name', base_url: PUBLIC, provider_id: 'lab-vllm' });
    expect(byRoute.body.error).toMatchObject({ code: 'resource_already_exists', conflicting_id: first.id });
    expect((await create({ name: 'Lab vLLM', base_url: PUBLIC }, h.other.admin)).status).toBe(201);
  });

  it.each([
    [{ base_url: PUBLIC }, 'name'],
    [{ name: 'x' }, 'base_url'],
    [{ name: 'x', base_url: 'ftp://93.184.216.34/' }, 'base_url'],
    [{ name: 'x', base_url: 'not a url' }, 'base_url'],
    [{ name: 'x', base_url: 'https://user:pw@93.184.216.34/v1' }, 'base_url'],
    [{ name: 'x', base_url: `${PUBLIC}/v1?key=1` }, 'base_url'],
    [{ name: 'x', base_url: PUBLIC, kind: 'anthropic' }, 'kind'],
    [{ name: 'x', base_url: PUBLIC, provider_id: 'openai' }, 'provider_id'],
    [{ name: 'x', base_url: PUBLIC, provider_id: 'Has Space' }, 'provider_id'],
    [{ name: 'Groq', base_url: PUBLIC }, 'provider_id'],
    // The first segments of the gateway's own /v1 routes: the catch-all would never reach such a target.
    [{ name: 'x', base_url: PUBLIC, provider_id: 'chat' }, 'provider_id'],
    [{ name: 'Health', base_url: PUBLIC }, 'provider_id'],
    [{ name: 'x', base_url: PUBLIC, headers: { Authorization: 'Bearer x' } }, 'headers.Authorization'],
    [{ name: 'x', base_url: PUBLIC, headers: { 'X-Goog-Api-Key': 'AIza-secret' } }, 'headers.X-Goog-Api-Key'],
    // Headers are stored and listed in clear: a credential under any name goes in api_key instead.
    [{ name: 'x', base_url: PUBLIC, headers: { 'X-Auth-Token': 'tok-secret' } }, 'headers.X-Auth-Token'],
    [{ name: 'x', base_url: PUBLIC, headers: { 'Ocp-Apim-Subscription-Key': 'sub-secret' } }, 'headers.Ocp-Apim-Subscription-Key'],
    [{ name: 'x', base_url: PUBLIC, headers: { 'X-Provider-Key': 'sk-secret' } }, 'headers.X-Provider-Key'],
    [{ name: 'x', base_url: PUBLIC, headers: { 'x-ok': 'a\r\nb' } }, 'headers.x-ok'],
    [{ name: 'x', base_url: PUBLIC, headers: { 'bad name': 'v' } }, 'headers.bad name'],
    // Valid in HTTP, but not stored: MongoDB may refuse such names as field names.
    [{ name: 'x', base_url: PUBLIC, headers: { $where: 'v' } }, 'headers'],
    [{ name: 'x', base_url: PUBLIC, headers: { 'x-team.name': 'v' } }, 'headers'],
    // Sent in HTTP headers on every call to the target: what a header cannot carry is refused here.
    [{ name: 'x', base_url: PUBLIC, headers: { 'x-team': 'équipe-ключ' } }, 'headers.x-team'],
    [{ name: 'x', base_url: PUBLIC, api_key: 'lab-key\r\nx-injected: 1' }, 'api_key'],
    [{ name: 'x', base_url: PUBLIC, api_key: 'lab-ключ-1234' }, 'api_key'],
    [{ name: 'x', base_url: PUBLIC, models: [''] }, 'models'],
    [{ name: 'x', base_url: PUBLIC, enabled: 'yes' }, 'enabled'],
    [{ name: 'x', base_url: PUBLIC, owner: 'me' }, 'owner'],
  ])('create %j is a 400 naming %s', async (body, param) => {
    expect(gatewayError(await create(body), 400).param).toBe(param);
  });

  it('lists, reads, updates and deletes; provider_id cannot change', async () => {
    const target = (await create({ name: 'Temp', base_url: PUBLIC, api_key: 'temp-key-1234' })).body;
    const list = await h.call('GET', '/gateway/admin/provider-targets?limit=2');
    expect(list.body).toMatchObject({ limit: 2, offset: 0, total: 4 });
    expect(list.body.items).toHaveLength(2);
    expect((await h.call('GET', `/gateway/admin/provider-targets/${target.id}`)).body).toEqual(target);

    const patched = await h.call('PATCH', `/gateway/admin/provider-targets/${target.id}`, { body: { name: 'Temp 2', api_key: null, headers: { 'x-env': 'staging' }, enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Temp 2', provider_id: 'temp', has_api_key: false, api_key_last_four: null, headers: { 'x-env': 'staging' }, enabled: false });
    expect(gatewayError(await h.call('PATCH', `/gateway/admin/provider-targets/${target.id}`, { body: { provider_id: 'moved' } }), 400).param).toBe('provider_id');
    expect(gatewayError(await h.call('PATCH', `/gateway/admin/provider-targets/${target.id}`, { body: { base_url: 'http://127.0.0.1/v1' } }), 400, 'url_not_allowed').param).toBe('base_url');
    expect((await h.call('PATCH', `/gateway/admin/provider-targets/${target.id}`, { body: { name: 'Lab vLLM' } })).body.error.code).toBe('resource_already_exists');

    expect((await h.call('DELETE', `/gateway/admin/provider-targets/${target.id}`)).status).toBe(204);
    gatewayError(await h.call('GET', `/gateway/admin/provider-targets/${target.id}`), 404, 'not_found');
  });

  it('answers 404 target_id for another organization’s target on every route', async () => {
    const theirs = (await h.call('GET', '/gateway/admin/provider-targets', { key: h.other.admin })).body.items[0];
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { name: 'stolen' }],
      ['DELETE', '', undefined],
      ['POST', '/discover-models', undefined],
      ['GET', '/catalog', undefined],
    ] as const) {
      expect(gatewayError(await h.call(method, `/gateway/admin/provider-targets/${theirs.id}${path}`, { body }), 404, 'not_found').param).toBe('target_id');
    }
    expect((await h.call('GET', `/gateway/admin/provider-targets/${theirs.id}`, { key: h.other.admin })).body.name).toBe('Lab vLLM');
  });

  it('needs admin:write to change and admin:read to read', async () => {
    const reader = (await h.newKey(h.org.id, ['admin:read'])).plaintext;
    const billing = (await h.newKey(h.org.id, ['billing:read'])).plaintext;
    const target = (await h.call('GET', '/gateway/admin/provider-targets')).body.items[0];
    for (const path of ['/gateway/admin/provider-targets', `/gateway/admin/provider-targets/${target.id}`, `/gateway/admin/provider-targets/${target.id}/catalog`, '/gateway/admin/discovery/catalog', '/gateway/admin/discovery/history']) {
      expect((await h.call('GET', path, { key: reader })).status).toBe(200);
      gatewayError(await h.call('GET', path, { key: billing }), 403, 'insufficient_scope');
    }
    for (const [method, path, body] of [
      ['POST', '/gateway/admin/provider-targets', { name: 'n', base_url: PUBLIC }],
      ['PATCH', `/gateway/admin/provider-targets/${target.id}`, { name: 'n' }],
      ['DELETE', `/gateway/admin/provider-targets/${target.id}`, undefined],
      ['POST', `/gateway/admin/provider-targets/${target.id}/discover-models`, undefined],
    ] as const) {
      gatewayError(await h.call(method, path, { key: reader, body }), 403, 'insufficient_scope');
    }
  });

  it.each([
    ['/discovery/catalog?limit=0', 'limit'],
    ['/discovery/catalog?limit=1001', 'limit'],
    ['/discovery/catalog?limit=abc', 'limit'],
    [`/discovery/catalog?provider_id=${'p'.repeat(65)}`, 'provider_id'],
    ['/discovery/catalog?colour=red', 'colour'],
    ['/discovery/history?limit=0', 'limit'],
    ['/discovery/history?limit=1001', 'limit'],
    ['/discovery/history?limit=1.5', 'limit'],
    ['/discovery/history?limit=abc', 'limit'],
    [`/discovery/history?target_id=${'t'.repeat(65)}`, 'target_id'],
    ['/provider-targets?limit=0', 'limit'],
    ['/provider-targets?limit=1001', 'limit'],
    ['/provider-targets?offset=-1', 'offset'],
    ['/provider-targets?offset=abc', 'offset'],
    ['/provider-targets?colour=red', 'colour'],
  ])('GET %s is a 400 naming %s', async (path, param) => {
    expect(gatewayError(await h.call('GET', `/gateway/admin${path}`), 400, 'invalid_request').param).toBe(param);
  });

  it.each([
    ['/discovery/catalog?cursor=not-a-cursor'],
    ['/discovery/catalog?cursor='],
    ['/discovery/catalog?cursor=mdl_%2F..'],
    [`/discovery/catalog?cursor=${'c'.repeat(600)}`],
    ['/usage?cursor=not-a-cursor'],
    ['/usage?cursor=bm90LWEtY3Vyc29y'],
    [`/usage?cursor=${'c'.repeat(600)}`],
  ])('GET %s is a 400 invalid_cursor (the same code on every cursor-paged list)', async (path) => {
    expect(gatewayError(await h.call('GET', `/gateway/admin${path}`), 400, 'invalid_cursor')).toMatchObject({ type: 'invalid_request_error', param: 'cursor' });
  });

  it('answers the bounds of the catalog and list queries', async () => {
    expect((await h.call('GET', '/gateway/admin/discovery/catalog?limit=1000')).body).toEqual({ items: [], total: 0, next_cursor: null, limit: 1000 });
    expect((await h.call('GET', '/gateway/admin/discovery/history?limit=1000')).body).toEqual({ items: [], total: 0, limit: 1000 });
    expect((await h.call('GET', '/gateway/admin/provider-targets?limit=1000&offset=0')).body).toMatchObject({ limit: 1000, offset: 0 });
  });

  describe('PATCH validation (nothing changes on a 400)', () => {
    let target: Json;
    beforeAll(async () => {
      target = (await create({ name: 'Patch me', base_url: PUBLIC, api_key: 'patch-key-5555', headers: { 'x-env': 'prod' } })).body;
    });

    it.each([
      [{ headers: { Authorization: 'Bearer x' } }, 'headers.Authorization'],
      [{ headers: { Cookie: 'a=b' } }, 'headers.Cookie'],
      [{ headers: { 'X-Client-Secret': 'cs-secret' } }, 'headers.X-Client-Secret'],
      [{ headers: { 'x-ok': 'a\r\nb' } }, 'headers.x-ok'],
      [{ headers: { 'x-ok': 'ключ' } }, 'headers.x-ok'],
      [{ api_key: 'patch-key\n-6666' }, 'api_key'],
      [{ api_key: 'patch-clé-6666' }, 'api_key'],
      [{ headers: { 'x-ok': 7 } }, 'headers.x-ok'],
      [{ headers: { 'bad name': 'v' } }, 'headers.bad name'],
      [{ headers: { $set: 'v' } }, 'headers'],
      [{ headers: { 'x.env': 'v' } }, 'headers'],
      [{ headers: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x-h${i}`, 'v'])) }, 'headers'],
      [{ headers: 'x-env: dev' }, 'headers'],
      [{ kind: 'ollama', format: 'openai_compatible' }, 'kind'],
      [{ kind: 'anthropic' }, 'kind'],
      [{ format: 'grpc' }, 'format'],
      [{ name: '   ' }, 'name'],
      [{ name: '' }, 'name'],
      [{ base_url: 'ftp://93.184.216.34/' }, 'base_url'],
      [{ base_url: `${PUBLIC}/v1#frag` }, 'base_url'],
      [{ enabled: 'yes' }, 'enabled'],
      [{ models: [''] }, 'models'],
      [{ models: 'gpt' }, 'models'],
      [{ api_key: '' }, 'api_key'],
      [{ owner: 'me' }, 'owner'],
      [{ name: null }, 'name'],
      [{ base_url: null }, 'base_url'],
      [{ kind: null }, 'kind'],
      [{ format: null }, 'format'],
      [{ headers: null }, 'headers'],
      [{ enabled: null }, 'enabled'],
      [{ models: null }, 'models'],
    ])('PATCH %j is a 400 naming %s', async (body, param) => {
      expect(gatewayError(await h.call('PATCH', `/gateway/admin/provider-targets/${target.id}`, { body }), 400).param).toBe(param);
      expect((await h.call('GET', `/gateway/admin/provider-targets/${target.id}`)).body).toEqual(target);
    });

    it.each([
      [{ name: null }, 'name'],
      [{ base_url: null }, 'base_url'],
      [{ provider_id: null }, 'provider_id'],
      [{ enabled: null }, 'enabled'],
      [{ api_key: null }, 'api_key'],
    ])('create %j is a 400 naming %s (null is not absent)', async (body, param) => {
      expect(gatewayError(await create({ name: 'Null', base_url: PUBLIC, ...body }), 400).param).toBe(param);
    });
  });
});
