import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { MockProvider, MOCK_BINARY_BYTES, startMockProvider } from '@svc/mock-provider';
import { providerRegistry } from '@svc/proxy';
import { GatewayHarness, openaiClient, postJson, PROVIDER_KEY, startGateway } from './harness';

/**
 * The D providers (DECISIONS.md "Providers"): every registry entry of label D, its base URL taken
 * from `<ID>_BASE_URL` with the base path kept, bearer credentials, the chat, embeddings and
 * catch-all routes (`ANY /v1/{provider_d}/{path}`: methods, query strings without the gateway's
 * `api_key`, binary bodies both ways) and catch-all paths that try to leave the provider's base.
 */
const D_PROVIDERS = providerRegistry.list().filter((p) => p.label === 'D');
const basePath = (id: string) => `/${id}/base/v1`;

describe('D providers: registry base URLs, credentials and the catch-all', () => {
  let upstream: MockProvider;
  let gw: GatewayHarness;
  const last = () => upstream.requests.at(-1);
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const call = (method: string, path: string, init: { body?: Buffer | string; headers?: Record<string, string> } = {}) =>
    fetch(`${gw.url}${path}`, { method, headers: { ...auth(), ...init.headers }, body: init.body });
  /** The path exactly as written (a URL parser, fetch's or node:http's, would resolve `..` and `%2e%2e` before sending). */
  const rawGet = (path: string, headers: Record<string, string> = auth()) =>
    new Promise<{ status: number; body: { error: { code: string; param: string | null; message: string } } }>((resolve, reject) => {
      const { hostname, port } = new URL(gw.url);
      const req = request({ hostname, port, path, method: 'GET', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    // A mock of its own behind every D provider, each at a base path of its own, from the environment.
    upstream = await startMockProvider({ port: 0 });
    const env = Object.fromEntries(D_PROVIDERS.map((p) => [`${p.id.toUpperCase()}_BASE_URL`, `${upstream.url}${basePath(p.id)}/`]));
    gw = await startGateway({ env });
  });
  afterAll(async () => {
    await gw.stop();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.reset();
    gw.mock.reset();
  });

  it('registers the D providers DECISIONS.md names', () => {
    const ids = D_PROVIDERS.map((p) => p.id);
    for (const id of ['mistral', 'groq', 'deepseek', 'together', 'fireworks', 'xai', 'perplexity', 'cerebras', 'deepinfra', 'openrouter', 'ollama', 'vllm']) expect(ids).toContain(id);
  });

  it.each(D_PROVIDERS.map((p) => [p.id, p.models.find((m) => !m.id.startsWith(`${p.id}/`))?.id ?? 'served-model', p.embeddings] as const))(
    '%s: chat completions and embeddings below the overridden base URL with a bearer key',
    async (id, model, embeddings) => {
      const completion = await openaiClient(gw, `/v1/${id}`).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
      expect(completion.choices[0].message.content).toBe('mock reply to: hi');
      expect([last()?.method, last()?.path, last()?.headers.authorization, last()?.body]).toEqual([
        'POST',
        `${basePath(id)}/chat/completions`,
        `Bearer ${PROVIDER_KEY}`,
        { model, messages: [{ role: 'user', content: 'hi' }] },
      ]);
      const res = await postJson(`${gw.url}/v1/${id}/embeddings`, { model, input: 'hi' }, auth());
      if (embeddings) {
        expect(res.status).toBe(200);
        expect(last()?.path).toBe(`${basePath(id)}/embeddings`);
      } else {
        expect([res.status, res.body.error.code]).toEqual([400, 'unsupported_endpoint']);
      }
      expect(gw.mock.requests).toHaveLength(0);
    },
  );

  it('forwards any method and path with its query string, minus the gateway api_key and a key parameter', async () => {
    const listed = await fetch(`${gw.url}/v1/groq/batches?limit=2&after=b%26c&tag=x&key=sk-other&api_key=${gw.key}`, { headers: { 'X-Provider-Key': PROVIDER_KEY } });
    expect(listed.status).toBe(200);
    expect([last()?.method, last()?.path, last()?.query, last()?.headers.authorization]).toEqual(['GET', `${basePath('groq')}/batches`, { limit: '2', after: 'b&c', tag: 'x' }, `Bearer ${PROVIDER_KEY}`]);
    expect(JSON.stringify(last())).not.toContain(gw.key);

    const deleted = await call('DELETE', '/v1/together/files/file-1?force=true');
    expect(deleted.status).toBe(200);
    expect([last()?.method, last()?.path, last()?.query]).toEqual(['DELETE', `${basePath('together')}/files/file-1`, { force: 'true' }]);
  });

  it('passes binary bodies byte for byte, both ways', async () => {
    const upload = randomBytes(4096);
    const posted = await call('POST', '/v1/mistral/files?purpose=ocr', { body: upload, headers: { 'content-type': 'application/octet-stream' } });
    expect(posted.status).toBe(200);
    expect([last()?.path, last()?.query, last()?.headers['content-type'], last()?.headers['content-length']]).toEqual([
      `${basePath('mistral')}/files`,
      { purpose: 'ocr' },
      'application/octet-stream',
      String(upload.length),
    ]);
    const speech = await call('POST', '/v1/groq/audio/speech', { body: JSON.stringify({ model: 'playai-tts', input: 'hi', voice: 'x' }), headers: { 'content-type': 'application/json' } });
    expect([speech.status, speech.headers.get('content-type')]).toEqual([200, 'audio/mpeg']);
    expect(Buffer.from(await speech.arrayBuffer()).equals(MOCK_BINARY_BYTES)).toBe(true);
  });

  it('forwards any JSON body, an array, a string, a number or null, as sent; governance reads every string in it', async () => {
    for (const body of ['[{"custom_id":"a","input":"hi"},{"custom_id":"b","input":["x",1,null]}]', '[]', '"text"', '42', 'null']) {
      const res = await call('POST', '/v1/groq/batches/inputs?x=1', { body, headers: { 'content-type': 'application/json' } });
      expect({ body, status: res.status }).toEqual({ body, status: 200 });
      expect([last()?.method, last()?.path, last()?.body]).toEqual(['POST', `${basePath('groq')}/batches/inputs`, JSON.parse(body)]);
    }
    // The PII scan reads every string of the body, whatever its shape (proxy-d-catch-all-governance.e2e-spec.ts).
    upstream.reset();
    const ssn = { input: 'My SSN is 123-45-6789' };
    for (const body of [ssn, [ssn]]) {
      const refused = await call('POST', '/v1/groq/batches/inputs', { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([403, 'pii_detected']);
    }
    expect(upstream.requests).toHaveLength(0);
    // Still JSON: malformed is 400 invalid_json, nothing sent.
    upstream.reset();
    const malformed = await call('POST', '/v1/groq/batches', { body: '[1,', headers: { 'content-type': 'application/json' } });
    expect([malformed.status, ((await malformed.json()) as { error: { code: string } }).error.code]).toEqual([400, 'invalid_json']);
    expect(upstream.requests).toHaveLength(0);
  });

  it("sends OpenRouter's own model ids (openrouter/auto) unchanged on its route; the generic endpoint strips one provider prefix", async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    for (const model of ['openrouter/auto', 'anthropic/claude-3.5-sonnet']) {
      expect((await postJson(`${gw.url}/v1/openrouter/chat/completions`, { model, messages }, auth())).status).toBe(200);
      expect([last()?.path, (last()?.body as { model: string }).model]).toEqual([`${basePath('openrouter')}/chat/completions`, model]);
    }
    const responses = await call('POST', '/v1/openrouter/responses', { body: JSON.stringify({ model: 'openrouter/auto', input: 'hi' }), headers: { 'content-type': 'application/json' } });
    expect([responses.status, (last()?.body as { model: string }).model]).toEqual([200, 'openrouter/auto']);
    // The generic endpoint routes by the prefix and strips it (DECISIONS.md): GET /v1/models lists openrouter/openrouter/auto.
    expect((await postJson(`${gw.url}/v1/chat/completions`, { model: 'openrouter/openrouter/auto', messages }, auth())).status).toBe(200);
    expect([last()?.path, (last()?.body as { model: string }).model]).toEqual([`${basePath('openrouter')}/chat/completions`, 'openrouter/auto']);
    // Another D provider's own route still strips its own prefix.
    expect((await postJson(`${gw.url}/v1/groq/chat/completions`, { model: 'groq/llama-3.3-70b-versatile', messages }, auth())).status).toBe(200);
    expect((last()?.body as { model: string }).model).toBe('llama-3.3-70b-versatile');
  });

  it('echoes a model id in a 404 with bidirectional and control characters escaped', async () => {
    const res = await fetch(`${gw.url}/v1/models/x%E2%80%AEy%0A`, { headers: auth() });
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect([res.status, body.error.code]).toEqual([404, 'model_not_found']);
    expect(body.error.message).toMatch(/^The model 'x\\u202ey\\u000a' is not listed\./);
  });

  it('echoes a model name in a 400 with bidirectional and control characters escaped, as a 404 does', async () => {
    const res = await postJson(`${gw.url}/v1/groq/chat/completions`, { model: 'claude-3-5-haiku\u202e\n', messages: [{ role: 'user', content: 'hi' }] }, auth());
    expect([res.status, res.body.error.code]).toEqual([400, 'provider_mismatch']);
    expect(res.body.error.message).toBe("Model 'claude-3-5-haiku\\u202e\\u000a' belongs to provider 'anthropic' and cannot be sent to provider 'groq'");
  });

  it.each([
    '/v1/groq/../openai/files',
    '/v1/groq/%2e%2e/openai/files',
    '/v1/groq/files/%2E%2E/%2e%2e/x',
    '/v1/groq/..%2f..%2fopenai%2ffiles',
    '/v1/groq/./files',
    '/v1/groq/files//x',
    '/v1/groq/a%5c..%5cb',
    '/v1/groq/https:%2f%2fevil.example/x',
  ])('refuses %s with 400 and sends nothing', async (path) => {
    const res = await rawGet(path);
    expect([res.status, res.body.error.code, res.body.error.param]).toEqual([400, 'invalid_request', 'path']);
    expect(upstream.requests).toHaveLength(0);
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('keeps a leading double slash and encoded separators below the base', async () => {
    expect((await call('GET', '/v1/groq//files')).status).toBe(200);
    expect(last()?.path).toBe(`${basePath('groq')}/files`);
    expect((await call('GET', '/v1/groq/files/a%2Fb')).status).toBe(200);
    expect(last()?.path).toBe(`${basePath('groq')}/files/a%2Fb`);
  });

  it('answers an empty provider segment (/v1//...) 404 not_found naming the routes, without a key', async () => {
    for (const [method, path] of [
      ['GET', '/v1//groq/files'],
      ['POST', '/v1//chat/completions'],
      ['DELETE', '/v1//files/x'],
    ]) {
      const res = await fetch(`${gw.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? JSON.stringify({ model: 'gpt-4o', messages: [] }) : undefined });
      expect(new URL(res.url).pathname).toBe(path);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, body.error.code]).toEqual([404, 'not_found']);
      expect(body.error.message).toContain(`No route ${method} ${path}. The gateway serves POST /v1/chat/completions`);
    }
    expect(upstream.requests).toHaveLength(0);
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('answers an unknown provider 404: unknown_provider on its chat route, not_found on the catch-all', async () => {
    const chat = await postJson(`${gw.url}/v1/nosuch/chat/completions`, { model: 'x', messages: [{ role: 'user', content: 'hi' }] }, auth());
    expect([chat.status, chat.body.error.code, chat.body.error.param]).toEqual([404, 'unknown_provider', 'provider']);
    const files = await call('GET', '/v1/nosuch/files?x=1');
    expect([files.status, ((await files.json()) as { error: { code: string } }).error.code]).toEqual([404, 'not_found']);
    expect(upstream.requests).toHaveLength(0);
  });
});
