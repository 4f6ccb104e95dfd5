import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asOrgId, loadOrgProviderTargets } from '@svc/domain';
import { listModels, providerRegistry, resolveBaseUrl, resolveRoute } from '@svc/proxy';
import { MockProvider, startMockProvider } from './mock-provider';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

const TARGET_KEY = 'sk-target-key-0001';
const MODELS = ['llama3.1:8b', 'qwen2.5:7b', 'gpt-4o-mini'];

/** A local server with the misbehaviours discovery must survive: redirects, a hang, a huge body, not JSON, only /models. */
async function startTricks(mockUrl: string): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.push(path);
    if (path.startsWith('/redirect-private/')) return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (path.startsWith('/redirect/')) return void res.writeHead(302, { location: `${mockUrl}/v1/models` }).end();
    if (path.startsWith('/hang/')) return;
    if (path.startsWith('/huge/')) {
      const data = Array.from({ length: 5_000 }, (_, i) => ({ id: `model-${i}-${'x'.repeat(30)}`, object: 'model' }));
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
    }
    if (path.startsWith('/chunked-huge/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      for (let i = 0; i < 2_000; i++) res.write(`${i ? ',' : ''}{"id":"m-${i}-${'y'.repeat(40)}"}`);
      return void res.end(']}');
    }
    if (path.startsWith('/notjson/')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('hello');
    if (path === '/rootonly/models') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'root-model' }] }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('gateway admin: model discovery (private networks allowed for the local mock)', () => {
  let h: AdminHarness;
  let mock: MockProvider;
  let tricks: Awaited<ReturnType<typeof startTricks>>;
  let lab: Json;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, models: MODELS, validKeys: [TARGET_KEY] });
    tricks = await startTricks(mock.url);
    h = await startAdmin({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', DISCOVERY_TIMEOUT_MS: '800', DISCOVERY_MAX_RESPONSE_BYTES: '65536' } });
    lab = (await h.call('POST', '/gateway/admin/provider-targets', { body: { name: 'Lab', provider_id: 'lab', base_url: `${mock.url}/v1`, api_key: TARGET_KEY, headers: { 'x-team': 'ml' } } })).body;
  });
  afterAll(async () => {
    await h.stop();
    await tricks.close();
    await mock.close();
  });
  beforeEach(() => mock.reset());

  const target = async (body: Json) => {
    const res = await h.call('POST', '/gateway/admin/provider-targets', { body });
    expect(res.status).toBe(201);
    return res.body;
  };
  const discover = (id: string) => h.call('POST', `/gateway/admin/provider-targets/${id}/discover-models`);

  it('asks an OpenAI-compatible server for /v1/models with the stored key and records the catalog', async () => {
    const res = await discover(lab.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      target_id: lab.id,
      provider_id: 'lab',
      status: 'succeeded',
      source_url: `${mock.url}/v1/models`,
      models: [...MODELS].sort(),
      routable_models: [...MODELS].sort().map((m) => `lab/${m}`),
      added: 3,
      removed: 0,
      total: 3,
      run_id: expect.stringMatching(/^dsc_/),
    });
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${TARGET_KEY}`, 'x-team': 'ml' } });

    const catalog = await h.call('GET', `/gateway/admin/provider-targets/${lab.id}/catalog`);
    expect(catalog.body).toMatchObject({ target_id: lab.id, provider_id: 'lab', total: 3 });
    expect(catalog.body.items.map((m: Json) => m.routable_id)).toEqual([...MODELS].sort().map((m) => `lab/${m}`));
    expect((await h.call('GET', `/gateway/admin/provider-targets/${lab.id}`)).body).toMatchObject({ last_discovery_status: 'succeeded', last_discovery_at: expect.any(String) });
    expect((await discover(lab.id)).body).toMatchObject({ added: 0, removed: 0, total: 3 });
  });

  it('asks Ollama for /api/tags, a bare host for /v1/models, and falls back to /models', async () => {
    const ollama = await target({ name: 'Ollama box', kind: 'ollama', base_url: mock.url });
    expect((await discover(ollama.id)).body).toMatchObject({ source_url: `${mock.url}/api/tags`, models: ['llama3.1:8b', 'qwen2.5:7b'] });
    const bare = await target({ name: 'Bare', base_url: mock.url, api_key: TARGET_KEY });
    expect((await discover(bare.id)).body).toMatchObject({ source_url: `${mock.url}/v1/models`, total: 3 });
    const rootOnly = await target({ name: 'Root only', base_url: `${tricks.url}/rootonly/v1` });
    expect((await discover(rootOnly.id)).body).toMatchObject({ source_url: `${tricks.url}/rootonly/models`, models: ['root-model'] });
  });

  it.each([
    ['a 401 from the target', '', 'http_status', /401/],
    ['a redirect (not followed)', '/redirect', 'redirect', /302.*not followed/],
    ['a redirect to the metadata address (not followed)', '/redirect-private', 'redirect', /169\.254\.169\.254/],
    ['a target that never answers (timeout)', '/hang', 'timeout', /800 ms/],
    ['a response over the size cap', '/huge', 'too_large', /65536 bytes/],
    ['a chunked response over the size cap', '/chunked-huge', 'too_large', /65536 bytes/],
    ['a response that is not JSON', '/notjson', 'invalid_response', /not JSON/],
  ])('fails with 502 discovery_failed on %s, and records the failed run', async (_what, path, failure, message) => {
    const base = path ? `${tricks.url}${path}/v1` : `${mock.url}/v1`;
    const t = await target({ name: `Broken ${failure} ${Math.random()}`, base_url: base });
    const started = Date.now();
    const error = gatewayError(await discover(t.id), 502, 'discovery_failed');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.param).toBe(failure);
    expect(error.message).toMatch(message);
    if (path.startsWith('/redirect')) expect(mock.requests).toHaveLength(0);
    const history = (await h.call('GET', `/gateway/admin/discovery/history?target_id=${t.id}`)).body.items;
    expect(history).toEqual([expect.objectContaining({ target_id: t.id, status: 'failed', error: expect.stringMatching(message), model_count: 0 })]);
    expect((await h.call('GET', `/gateway/admin/provider-targets/${t.id}`)).body.last_discovery_status).toBe('failed');
  });

  it('fails with 502 (param api_key) when the stored key does not decrypt for the organization', async () => {
    const sealedElsewhere = h.service.runtime.cipher.encrypt(h.other.id, TARGET_KEY);
    const seeded = await h.repos.providerTargets.create(asOrgId(h.org.id), { name: 'Moved key', provider_id: 'moved-key', base_url: `${mock.url}/v1`, api_key: sealedElsewhere });
    const error = gatewayError(await discover(seeded._id), 502, 'discovery_failed');
    expect(error.param).toBe('api_key');
    expect(mock.requests).toHaveLength(0);
  });

  it('pages the catalog across targets by cursor, filters by provider_id, and lists the history newest first', async () => {
    const all = (await h.call('GET', '/gateway/admin/discovery/catalog')).body.items as Json[];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = (await h.call('GET', `/gateway/admin/discovery/catalog?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((m: Json) => m.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((m) => m.id));
    const labOnly = (await h.call('GET', '/gateway/admin/discovery/catalog?provider_id=lab')).body.items as Json[];
    expect(labOnly.map((m) => m.model_id).sort()).toEqual([...MODELS].sort());
    expect(labOnly.every((m) => m.provider_id === 'lab')).toBe(true);

    const history = await h.call('GET', '/gateway/admin/discovery/history?limit=3');
    expect(history.body.items).toHaveLength(3);
    const times = (history.body.items as Json[]).map((r) => Date.parse(r.started_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(history.body).toMatchObject({ limit: 3, total: (await h.repos.discoveryRuns.listRecent(asOrgId(h.org.id), 1000)).length });
    expect(history.body.total).toBeGreaterThan(3);
    const labRuns = await h.call('GET', `/gateway/admin/discovery/history?target_id=${lab.id}`);
    expect(labRuns.body.total).toBe(labRuns.body.items.length);
    expect((labRuns.body.items as Json[]).every((r) => r.target_id === lab.id)).toBe(true);

    expect((await h.call('GET', '/gateway/admin/discovery/catalog')).body.total).toBe(all.length);
    expect((await h.call('GET', '/gateway/admin/discovery/catalog?provider_id=LAB&limit=1')).body).toMatchObject({ total: 3, limit: 1, next_cursor: expect.any(String) });
    expect((await h.call('GET', '/gateway/admin/discovery/history', { key: h.other.admin })).body).toEqual({ items: [], total: 0, limit: 50 });
    expect((await h.call('GET', '/gateway/admin/discovery/catalog', { key: h.other.admin })).body).toEqual({ items: [], total: 0, next_cursor: null, limit: 200 });
  });

  it('answers 404 for a target_id or provider_id that is not one of the organization’s targets', async () => {
    for (const key of [h.other.admin, h.org.admin]) {
      const owner = key === h.org.admin ? 'unknown' : 'another organization’s';
      const targetId = key === h.org.admin ? 'tgt_unknown' : lab.id;
      const providerId = key === h.org.admin ? 'nowhere' : 'lab';
      expect({ owner, param: gatewayError(await h.call('GET', `/gateway/admin/discovery/history?target_id=${targetId}`, { key }), 404, 'not_found').param }).toEqual({ owner, param: 'target_id' });
      expect({ owner, param: gatewayError(await h.call('GET', `/gateway/admin/discovery/catalog?provider_id=${providerId}`, { key }), 404, 'not_found').param }).toEqual({ owner, param: 'provider_id' });
    }
    gatewayError(await h.call('GET', '/gateway/admin/discovery/catalog?provider_id=openai'), 404, 'not_found');
  });

  it('keeps the history of a deleted target readable by its id', async () => {
    const gone = await target({ name: 'Short-lived', provider_id: 'short-lived', base_url: `${mock.url}/v1`, api_key: TARGET_KEY });
    expect((await discover(gone.id)).status).toBe(200);
    expect((await h.call('DELETE', `/gateway/admin/provider-targets/${gone.id}`)).status).toBe(204);
    const runs = await h.call('GET', `/gateway/admin/discovery/history?target_id=${gone.id}`);
    expect(runs.status).toBe(200);
    expect(runs.body).toMatchObject({ total: 1, items: [expect.objectContaining({ target_id: gone.id, status: 'succeeded' })] });
    gatewayError(await h.call('GET', '/gateway/admin/discovery/catalog?provider_id=short-lived'), 404, 'not_found');
  });

  it('takes discover-models with the JSON content type and an empty body (no body needed)', async () => {
    const res = await h.call('POST', `/gateway/admin/provider-targets/${lab.id}/discover-models`, { rawBody: '' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ target_id: lab.id, status: 'succeeded', total: 3 });
  });

  it.each([
    ['an unknown field', { foo: 1 }, 'foo'],
    ['an array', [1], 'body'],
    ['a number', 5, 'body'],
  ])('refuses discover-models with %s in the body (%j): 400 naming %s, no run, nothing asked', async (_what, body, param) => {
    const runs = async () => (await h.call('GET', `/gateway/admin/discovery/history?target_id=${lab.id}`)).body.total as number;
    const before = await runs();
    const res = await h.call('POST', `/gateway/admin/provider-targets/${lab.id}/discover-models`, { body });
    expect(gatewayError(res, 400, 'invalid_request').param).toBe(param);
    expect(mock.requests).toHaveLength(0);
    expect(await runs()).toBe(before);
    expect((await h.call('POST', `/gateway/admin/provider-targets/${lab.id}/discover-models`, { body: {} })).status).toBe(200);
  });

  it('gives the proxy routable entries: the models list and a working upstream route (integration point)', async () => {
    await discover(lab.id);
    const disabled = await target({ name: 'Off', provider_id: 'off', base_url: mock.url, enabled: false, models: ['hidden'] });
    expect(disabled.enabled).toBe(false);
    const routes = await loadOrgProviderTargets(h.repos, asOrgId(h.org.id));
    expect(routes.map((r) => r.id)).not.toContain('off');
    const registry = providerRegistry.withTargets(routes);
    const listed = listModels(registry).data.filter((m) => m.owned_by === 'lab').map((m) => m.id);
    expect(listed.sort()).toEqual([...MODELS].sort().map((m) => `lab/${m}`));

    const route = resolveRoute({ model: 'lab/qwen2.5:7b', registry });
    expect({ provider: route.provider.id, model: route.upstreamModel, base: resolveBaseUrl(route.provider) }).toEqual({ provider: 'lab', model: 'qwen2.5:7b', base: `${mock.url}/v1` });
    const key = h.decrypt(h.org.id, routes.find((r) => r.id === 'lab')?.apiKey);
    const upstream = await fetch(`${resolveBaseUrl(route.provider)}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...route.provider.headers },
      body: JSON.stringify({ model: route.upstreamModel, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(upstream.status).toBe(200);
    expect(((await upstream.json()) as Json).model).toBe('qwen2.5:7b');
    expect(mock.requests.at(-1)?.headers['x-team']).toBe('ml');
  });
});

describe('gateway admin: model discovery refuses private destinations (SSRF)', () => {
  let h: AdminHarness;
  let mock: MockProvider;
  let tricks: Awaited<ReturnType<typeof startTricks>>;

  const REFUSED = [
    'http://127.0.0.1:8000/v1',
    'http://localhost:11434',
    'http://[::1]:8000/v1',
    'http://[::ffff:127.0.0.1]:8000/v1',
    'http://169.254.169.254/latest',
    'http://2852039166/latest',
    'http://0251.0376.0251.0376/latest',
    'http://0xa9fea9fe/latest',
    'http://0xA9.0xFE.0xA9.0xFE/latest',
    'http://10.0.0.5/v1',
    'http://172.16.3.4/v1',
    'http://192.168.1.10/v1',
    'http://100.64.0.1/v1',
    'http://[fc00::1]/v1',
    'http://[fd12:3456::1]/v1',
    'http://[fe80::1]/v1',
    'http://0.0.0.0:8000/v1',
    // Other clouds' metadata endpoints; Azure's wireserver is a public address.
    'http://168.63.129.16/v1',
    'http://100.100.100.200/latest',
    'http://192.0.0.192/opc/v2',
    'http://[fd00:ec2::254]/latest',
    // IPv4-mapped IPv6 of the ranges above, in both notations, and IPv4-compatible IPv6.
    'http://[::ffff:169.254.169.254]/latest',
    'http://[::ffff:a9fe:a9fe]/latest',
    'http://[::ffff:10.0.0.1]/v1',
    'http://[::ffff:172.16.3.4]/v1',
    'http://[0:0:0:0:0:ffff:192.168.1.10]/v1',
    'http://[::ffff:100.64.0.1]/v1',
    'http://[::ffff:0.0.0.0]:8000/v1',
    'http://[::127.0.0.1]:8000/v1',
  ];

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, models: MODELS });
    tricks = await startTricks(mock.url);
    h = await startAdmin();
  });
  afterAll(async () => {
    await h.stop();
    await tricks.close();
    await mock.close();
  });

  it.each(REFUSED)('refuses to register %s (400 url_not_allowed)', async (url) => {
    const error = gatewayError(await h.call('POST', '/gateway/admin/provider-targets', { body: { name: `t ${url}`, base_url: url } }), 400, 'url_not_allowed');
    expect(error.param).toBe('base_url');
    expect(error.message).toMatch(/not allowed/);
  });

  it('refuses discovery on stored targets that point inside (the mock, a redirector, every range) and sends nothing', async () => {
    const urls = [...REFUSED, `${mock.url}/v1`, `http://localhost:${mock.port}/v1`, `${tricks.url}/redirect-private/v1`];
    const org = asOrgId(h.org.id);
    for (const [i, url] of urls.entries()) {
      const seeded = await h.repos.providerTargets.create(org, { name: `seeded ${i}`, provider_id: `seeded-${i}`, base_url: url });
      const error = gatewayError(await h.call('POST', `/gateway/admin/provider-targets/${seeded._id}/discover-models`), 400, 'url_not_allowed');
      expect({ url, range: /loopback|private|linkLocal|metadata|carrierGradeNat|uniqueLocal|unspecified|ipv4Compatible/.test(error.message) }).toEqual({ url, range: true });
    }
    expect(mock.requests).toHaveLength(0);
    expect(tricks.hits).toEqual([]);
    const history = (await h.call('GET', '/gateway/admin/discovery/history?limit=1000')).body.items as Json[];
    expect(history).toHaveLength(urls.length);
    expect(history.every((run) => run.status === 'failed' && /not allowed/.test(run.error))).toBe(true);
    expect((await h.call('GET', '/gateway/admin/discovery/catalog')).body.items).toEqual([]);
  });
});
