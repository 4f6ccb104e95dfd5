import { createKey, GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway } from './harness';

const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
const message = { model: 'claude-sonnet-4-5', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] };
const embedding = { model: 'text-embedding-3-small', input: 'vector me' };

/** Every POST proxy route with a valid body for it. */
const ROUTES: [string, Json][] = [
  ['/v1/chat/completions', chat],
  ['/v1/openai/chat/completions', chat],
  ['/v1/groq/chat/completions', { ...chat, model: 'llama-3.3-70b-versatile' }],
  ['/v1/messages', message],
  ['/v1/anthropic/messages', message],
  ['/v1/anthropic/v1/messages', message],
  ['/v1/embeddings', embedding],
  ['/v1/openai/embeddings', embedding],
];

type Answer = { status: number; headers: Headers; body: Json };

/** Bad input on every proxy route: a clear 4xx in the gateway's format, nothing sent upstream. */
describe('gateway proxy routes with bad input', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const raw = async (path: string, body: string, contentType: string): Promise<Answer> => {
    const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { ...auth(), 'content-type': contentType }, body });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  };
  function refused(res: Answer, status: number, code: string, param?: string | null): void {
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
    expect(typeof res.body.error.message).toBe('string');
    if (param !== undefined) expect(res.body.error.param).toBe(param);
    expect(res.headers.get('x-svc-request-id')).toMatch(/^gw_/);
  }

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());
  afterEach(() => gw.mock.setBehavior(null));

  it.each(ROUTES)('%s: a valid body passes; malformed JSON 400 invalid_json; another content type 415; an empty body 400', async (path, valid) => {
    expect((await postJson(`${gw.url}${path}`, valid, auth())).status).toBe(200);
    refused(await raw(path, '{"model": "gpt-4o", "messages": [', 'application/json'), 400, 'invalid_json');
    refused(await raw(path, JSON.stringify(valid), 'text/plain'), 415, 'unsupported_media_type');
    refused(await raw(path, '', 'application/json'), 400, 'invalid_json');
    for (const notAnObject of ['[1, 2]', 'null', '"hello"', '5']) {
      const res = await raw(path, notAnObject, 'application/json');
      refused(res, 400, 'invalid_request', 'body');
      expect(res.body.error.message).toBe('The request body must be a JSON object');
    }
    expect(gw.mock.requests).toHaveLength(1);
  });

  it('a prompt of one 3 MB word (byte-pair merging is quadratic in a word) is served, and the gateway stays responsive', async () => {
    let word = '';
    for (let i = 0; word.length < 3 * 1024 * 1024; i++) word += ((i * 2_654_435_761) >>> 7).toString(26).replace(/[0-9]/g, 'q');
    const res = await postJson(`${gw.url}/v1/chat/completions`, { ...chat, messages: [{ role: 'user', content: word }] }, auth());
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-svc-governance-time-ms'))).toBeGreaterThan(0);
    expect((await postJson(`${gw.url}/v1/chat/completions`, chat, auth())).status).toBe(200);
  }, 30_000);

  it.each([
    ['/v1/chat/completions', chat],
    ['/v1/messages', message],
  ])('%s: a body nested deeper than 128 levels is 400 invalid_request (10,000 levels was a 500); 128 levels pass', async (path, valid) => {
    // `levels` objects under the body's own level: the body nests levels + 1 deep.
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    const withNested = (levels: number) => `${JSON.stringify(valid).slice(0, -1)},"x_nested":${nested(levels)}}`;
    for (const levels of [128, 10_000]) {
      const res = await raw(path, withNested(levels), 'application/json');
      refused(res, 400, 'invalid_request', null);
      expect(res.body.error.message).toContain('128');
    }
    expect(gw.mock.requests).toHaveLength(0);
    expect((await raw(path, withNested(127), 'application/json')).status).toBe(200);
  });

  it.each([
    ['/v1/embeddings', { model: 'text-embedding-3-small' }, 'input'],
    ['/v1/embeddings', { model: 'text-embedding-3-small', input: [] }, 'input'],
    ['/v1/openai/embeddings', { model: 'text-embedding-3-small', input: 42 }, 'input'],
    ['/v1/embeddings', { input: 'no model' }, 'model'],
    ['/v1/messages', { model: 'claude-sonnet-4-5', messages: message.messages }, 'max_tokens'],
    ['/v1/anthropic/v1/messages', { model: 'claude-sonnet-4-5', messages: message.messages }, 'max_tokens'],
    ['/v1/anthropic/messages', { ...message, max_tokens: 0 }, 'max_tokens'],
    ['/v1/messages', { ...message, system: 42 }, 'system'],
    ['/v1/openai/chat/completions', { ...chat, temperature: 3 }, 'temperature'],
    ['/v1/groq/chat/completions', { ...chat, model: 'llama-3.3-70b-versatile', temperature: -0.1 }, 'temperature'],
    ['/v1/gemini/chat/completions', { model: 'gemini-2.5-flash', messages: [] }, 'messages'],
    ['/v1/chat/completions', { ...chat, messages: ['hi'] }, 'messages[0].role'],
  ])('%s with %j: 400 naming %s', async (path, body, param) => {
    const res = await postJson(`${gw.url}${path}`, body, auth());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('400 provider_mismatch for a claude- model on the openai route, and for a gpt- model on anthropic', async () => {
    const claude = await postJson(`${gw.url}/v1/openai/chat/completions`, { ...chat, model: 'claude-sonnet-4-5' }, auth());
    refused(claude, 400, 'provider_mismatch', 'model');
    expect(claude.body.error.message).toContain("'anthropic'");
    const gpt = await postJson(`${gw.url}/v1/anthropic/messages`, { ...message, model: 'gpt-4o' }, auth());
    refused(gpt, 400, 'provider_mismatch', 'model');
    const explicit = await postJson(`${gw.url}/v1/openai/chat/completions`, { ...chat, model: 'groq/llama-3.3-70b-versatile' }, auth());
    refused(explicit, 400, 'provider_mismatch', 'model');
    expect(gw.mock.requests).toHaveLength(0);
  });

  it.each([
    ['/v1/openai/messages', 'openai', { model: 'gpt-4o', messages: chat.messages }],
    ['/v1/openai/v1/messages', 'openai', {}],
    ['/v1/groq/messages', 'groq', { model: 'llama-3.3-70b-versatile', messages: [], max_tokens: 0 }],
    ['/v1/gemini/messages', 'gemini', { messages: chat.messages }],
    ['/v1/anthropic/embeddings', 'anthropic', { model: 'claude-sonnet-4-5' }],
    ['/v1/groq/embeddings', 'groq', { input: [] }],
    ['/v1/gemini/embeddings', 'gemini', {}],
    ['/v1/embeddings', 'gemini', { model: 'gemini-2.5-flash', input: 42 }],
  ])('%s for %s: 400 unsupported_endpoint before any complaint about the body %j', async (path, provider, body) => {
    const res = await postJson(`${gw.url}${path}`, body, auth());
    refused(res, 400, 'unsupported_endpoint');
    expect(res.body.error.message).toContain(`${provider} does not offer`);
    if (!path.startsWith(`/v1/${provider}/`)) return;
    // Below a provider base the route is refused whatever the body: malformed JSON, another content type, none.
    refused(await raw(path, '{"model": ', 'application/json'), 400, 'unsupported_endpoint');
    refused(await raw(path, 'text', 'text/plain'), 400, 'unsupported_endpoint');
    refused(await raw(path, '', 'application/json'), 400, 'unsupported_endpoint');
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('GET /v1/models: 401 GW_AUTH_001 without a key naming the locations; 403 for a key without gateway:read', async () => {
    const missing = await fetch(`${gw.url}/v1/models`);
    const body = (await missing.json()) as Json;
    expect(missing.status).toBe(401);
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
    expect(body.error.message).toMatch(/X-SVC-API-Key.*Authorization: Bearer.*api_key/);
    const adminOnly = await createKey(gw, { scopes: ['admin:read'] });
    const forbidden = await fetch(`${gw.url}/v1/models`, { headers: { 'X-SVC-API-Key': adminOnly.key } });
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as Json).error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    const viaQuery = await fetch(`${gw.url}/v1/models?api_key=${encodeURIComponent(gw.key)}`);
    expect(viaQuery.status).toBe(200);
  });

  it('409 idempotency_key_in_progress while the first request with the key is still upstream', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 800 });
    const headers = { ...auth(), 'Idempotency-Key': `slow-${Date.now()}` };
    const body = { ...chat, messages: [{ role: 'user', content: 'only once, slowly' }] };
    const first = postJson(`${gw.url}/v1/chat/completions`, body, headers);
    for (let i = 0; i < 50 && gw.mock.requests.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(gw.mock.requests).toHaveLength(1);
    const second = await postJson(`${gw.url}/v1/chat/completions`, body, headers);
    refused(second, 409, 'idempotency_key_in_progress', 'Idempotency-Key');
    expect((await first).status).toBe(200);
    const replay = await postJson(`${gw.url}/v1/chat/completions`, body, headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(gw.mock.requests).toHaveLength(1);
    const malformed = await postJson(`${gw.url}/v1/chat/completions`, body, { ...headers, 'Idempotency-Key': 'bad key with spaces' });
    expect({ status: malformed.status, param: malformed.body.error?.param }).toEqual({ status: 400, param: 'Idempotency-Key' });
  });

  it('the catch-all is 404 on providers that are not D, and absent from /docs/json', async () => {
    for (const provider of ['openai', 'anthropic', 'gemini']) {
      const res = await fetch(`${gw.url}/v1/${provider}/files/abc/content`, { headers: auth() });
      expect({ provider, status: res.status, code: ((await res.json()) as Json).error?.code }).toEqual({ provider, status: 404, code: 'not_found' });
    }
    const unknown = await fetch(`${gw.url}/v1/nosuch/files`, { headers: auth() });
    expect(unknown.status).toBe(404);
    expect(gw.mock.requests).toHaveLength(0);

    const doc = (await (await fetch(`${gw.url}/docs/json`)).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(expect.arrayContaining(['/v1/chat/completions', '/v1/{provider}/chat/completions', '/v1/messages', '/v1/embeddings', '/v1/models']));
    expect(paths.filter((path) => path.includes('*') || /\{\*?\}|\{path\}|\{wildcard\}/.test(path))).toEqual([]);
    expect(paths.filter((path) => path.startsWith('/v1/{provider}/')).sort()).toEqual(
      ['/v1/{provider}/chat/completions', '/v1/{provider}/embeddings', '/v1/{provider}/messages', '/v1/{provider}/models', '/v1/{provider}/models/{model}', '/v1/{provider}/v1/messages', '/v1/{provider}/v1/models', '/v1/{provider}/v1/models/{model}'].sort(),
    );
  });
});
