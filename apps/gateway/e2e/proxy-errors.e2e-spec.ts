import { IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { asOrgId } from '@svc/domain';
import { expectGovernanceHeaders, GatewayHarness, postJson, PROVIDER_KEY, startGateway } from './harness';

const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

/** Headers of a node:http response as a fetch `Headers`. */
function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  return headers;
}

/** Every refusal of the proxy routes, through raw HTTP, in the gateway error format. */
describe('gateway proxy errors', () => {
  let gw: GatewayHarness;
  const url = () => `${gw.url}/v1/chat/completions`;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });

  beforeAll(async () => {
    gw = await startGateway({ env: { GROQ_API_KEY: 'gsk-from-environment' } });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('401 GW_AUTH_001 without a gateway key, naming the accepted locations', async () => {
    const res = await postJson(url(), chat, { 'X-Provider-Key': PROVIDER_KEY });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
    expect(res.body.error.message).toMatch(/X-SVC-API-Key.*Authorization: Bearer.*api_key/);
    expect(res.headers.get('x-svc-request-id')).toMatch(/^gw_/);
  });

  it('401 GW_AUTH_002 for an unknown key; earlier beta prefixes are refused', async () => {
    const unknown = await postJson(url(), chat, { 'X-SVC-API-Key': 'svc_sk_doesnotexist0000000000000000000000000', 'X-Provider-Key': PROVIDER_KEY });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_002', param: null });
    const beta = await postJson(url(), chat, { 'X-SVC-API-Key': 'svc_live_0123456789abcdef', 'X-Provider-Key': PROVIDER_KEY });
    expect(beta.status).toBe(401);
    expect(beta.body.error.code).toBe('invalid_api_key');
  });

  it('401 GW_AUTH_001 for a value without a gateway key prefix in X-SVC-API-Key or api_key (malformed, not unknown)', async () => {
    const header = await postJson(url(), chat, { 'X-SVC-API-Key': 'foo_bar', 'X-Provider-Key': PROVIDER_KEY });
    const query = await postJson(`${url()}?api_key=sk-proj-not-a-gateway-key`, chat, { 'X-Provider-Key': PROVIDER_KEY });
    for (const res of [header, query]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
      expect(res.body.error.message).toContain('svc_sk_');
    }
    expect(gw.mock.requests).toHaveLength(0);
  });

  it.each([
    ['gateway key first', (key: string) => [`Bearer ${key}`, 'Bearer sk-provider-second']],
    ['provider key first', (key: string) => ['Bearer sk-provider-second', `Bearer ${key}`]],
  ])('both keys as Authorization: Bearer (%s): the gateway-prefixed one authenticates, the other goes upstream', async (_, values) => {
    const target = new URL(url());
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      // Headers as a flat list of names and values (Host included, which Node then leaves to us): two Authorization lines.
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: ['host', target.host, 'authorization', values(gw.key)[0], 'authorization', values(gw.key)[1], 'content-type', 'application/json'] },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(chat));
    });
    expect(answer.status).toBe(200);
    expect(gw.mock.requests).toHaveLength(1);
    expect(gw.mock.requests[0].headers.authorization).toBe('Bearer sk-provider-second');
  });

  it.each([
    ['gateway key first', (key: string) => [`Bearer ${key}`, 'Bearer sk-provider-second']],
    ['provider key first', (key: string) => ['Bearer sk-provider-second', `Bearer ${key}`]],
  ])('both keys as Authorization: Bearer, joined into one line by fetch (%s): the same as two lines', async (_, values) => {
    // fetch (and any Headers object) joins a repeated header into one value: `Bearer a, Bearer b`.
    const headers = new Headers({ 'content-type': 'application/json' });
    for (const value of values(gw.key)) headers.append('Authorization', value);
    const res = await fetch(url(), { method: 'POST', headers, body: JSON.stringify(chat) });
    expect(res.status).toBe(200);
    expect(gw.mock.requests[0].headers.authorization).toBe('Bearer sk-provider-second');
    const models = await fetch(`${gw.url}/v1/models`, { headers });
    expect(models.status).toBe(200);
  });

  it('both keys as two Authorization lines on GET /v1/models, provider key first: the gateway key authenticates', async () => {
    const target = new URL(`${gw.url}/v1/models`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'GET', headers: ['host', target.host, 'authorization', 'Bearer sk-provider-second', 'authorization', `Bearer ${gw.key}`] },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('refusals before governance (body, route, scope, idempotency) carry the rate-limit and cost headers, and count nothing', async () => {
    const first = await postJson(url(), chat, auth());
    expect(first.status).toBe(200);
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const readOnly = await gw.newKey(['gateway:read']);
    await postJson(url(), chat, { ...auth(), 'Idempotency-Key': 'standing-1' });
    const refusals = [
      await postJson(`${gw.url}/v1/openai/chat/completions`, { ...chat, model: 'claude-sonnet-4-5' }, auth()), // provider_mismatch
      await postJson(url(), { messages: chat.messages }, auth()), // no model
      await postJson(url(), chat, { 'X-SVC-API-Key': readOnly, 'X-Provider-Key': PROVIDER_KEY }), // insufficient_scope
      await postJson(`${gw.url}/v1/nosuch/chat/completions`, chat, auth()), // unknown_provider
      await postJson(url(), { ...chat, temperature: 1 }, { ...auth(), 'Idempotency-Key': 'standing-1' }), // idempotency_key_reused
    ];
    expect(refusals.map((res) => res.status)).toEqual([400, 400, 403, 404, 409]);
    for (const res of refusals) {
      expectGovernanceHeaders(res.headers, gw.orgId);
      expect(res.headers.get('x-svc-cost')).toBe('0');
      // Peeked, not counted: the window still shows what the two served requests left (or, if a new
      // minute began meanwhile, the whole limit).
      const sameWindow = res.headers.get('x-ratelimit-reset') === first.headers.get('x-ratelimit-reset');
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(sameWindow ? remaining - 1 : Number(first.headers.get('x-ratelimit-limit')));
    }
  });

  it('403 when the key lacks gateway:write; gateway_proxy counts as gateway:write', async () => {
    const readOnly = await gw.newKey(['gateway:read']);
    const refused = await postJson(url(), chat, { 'X-SVC-API-Key': readOnly, 'X-Provider-Key': PROVIDER_KEY });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    const legacy = await gw.newKey(['gateway_proxy']);
    expect((await postJson(url(), chat, { 'X-SVC-API-Key': legacy, 'X-Provider-Key': PROVIDER_KEY })).status).toBe(200);
    const models = await fetch(`${gw.url}/v1/models`, { headers: { 'X-SVC-API-Key': readOnly } });
    expect(models.status).toBe(200);
  });

  it('401 missing_provider_key when nothing resolves; then a stored secret, then the environment', async () => {
    const missing = await postJson(url(), chat, { 'X-SVC-API-Key': gw.key });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ type: 'authentication_error', code: 'missing_provider_key' });

    const sealed = gw.service.runtime.cipher.encrypt(gw.orgId, 'sk-stored-secret');
    await gw.repos.providerSecrets.create(asOrgId(gw.orgId), { provider: 'openai', encrypted: sealed, label: 'ci', last_four: 'cret' });
    await gw.service.runtime.invalidation.publish('provider-secret', gw.orgId); // as the admin API does
    expect((await postJson(url(), chat, { 'X-SVC-API-Key': gw.key })).status).toBe(200);
    expect(gw.mock.requests.at(-1)?.headers.authorization).toBe('Bearer sk-stored-secret');

    const groq = await postJson(`${gw.url}/v1/groq/chat/completions`, { ...chat, model: 'llama-3.3-70b-versatile' }, { 'X-SVC-API-Key': gw.key });
    expect(groq.status).toBe(200);
    expect(gw.mock.requests.at(-1)?.headers.authorization).toBe('Bearer gsk-from-environment');
    expectGovernanceHeaders(missing.headers, gw.orgId);
  });

  it('401 invalid_provider_key for a gateway key sent as X-Provider-Key: never forwarded to the provider', async () => {
    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      const body = path === '/v1/messages' ? { model: 'claude-sonnet-4-6', max_tokens: 5, messages: chat.messages } : chat;
      const res = await postJson(`${gw.url}${path}`, body, { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': gw.key });
      expect([path, res.status, res.body.error]).toEqual([path, 401, expect.objectContaining({ type: 'authentication_error', code: 'invalid_provider_key', param: 'X-Provider-Key' })]);
      expect(JSON.stringify(res.body)).not.toContain(gw.key);
    }
    expect(gw.mock.totalRequests).toBe(0);
  });

  it("401 invalid_provider_key for a stored key no header can carry, never counted by the provider's breaker", async () => {
    // Stored before the admin API refused such keys (or written by another tool): a control character.
    const sealed = gw.service.runtime.cipher.encrypt(gw.orgId, 'sk-mistral\u0001broken');
    await gw.repos.providerSecrets.create(asOrgId(gw.orgId), { provider: 'mistral', encrypted: sealed, label: 'legacy', last_four: 'oken' });
    await gw.service.runtime.invalidation.publish('provider-secret', gw.orgId);
    const mistral = `${gw.url}/v1/mistral/chat/completions`;
    const body = { model: 'mistral-small-latest', messages: chat.messages };
    for (let i = 0; i < 6; i++) {
      const res = await postJson(mistral, body, { 'X-SVC-API-Key': gw.key });
      expect([res.status, res.body.error?.type, res.body.error?.code]).toEqual([401, 'authentication_error', 'invalid_provider_key']);
    }
    expect(gw.mock.totalRequests).toBe(0);
    // The breaker stayed closed: a valid key from the request is served at once.
    expect((await postJson(mistral, body, auth())).status).toBe(200);
    const health = (await (await fetch(`${gw.url}/v1/providers/health`)).json()) as { providers: { provider: string; state: string; failure_count: number }[] };
    expect(health.providers.find((p) => p.provider === 'mistral')).toMatchObject({ state: 'closed', failure_count: 0 });
  });

  it.each([
    ['no model', { messages: chat.messages }, 'model'],
    ['messages not an array', { model: 'gpt-4o', messages: 'hi' }, 'messages'],
    ['temperature above 2', { ...chat, temperature: 3 }, 'temperature'],
    ['stream not a boolean', { ...chat, stream: 'yes' }, 'stream'],
    ['max_tokens not an integer', { ...chat, max_tokens: 1.5 }, 'max_tokens'],
    ['max_tokens beyond any model (1e308)', { ...chat, max_tokens: 1e308 }, 'max_tokens'],
    ['max_completion_tokens not a number', { ...chat, max_completion_tokens: '100' }, 'max_completion_tokens'],
    ['max_completion_tokens zero', { ...chat, max_completion_tokens: 0 }, 'max_completion_tokens'],
  ])('400 for %s, naming the field', async (_what, body, param) => {
    const res = await postJson(url(), body, auth());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('400 invalid_json for a malformed body, 415 for another content type', async () => {
    const malformed = await fetch(url(), { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: '{"model":' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
    const text = await fetch(url(), { method: 'POST', headers: { ...auth(), 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
  });

  it('404 for an unknown provider, and for the catch-all on a non-D provider', async () => {
    const unknown = await postJson(`${gw.url}/v1/nosuch/chat/completions`, chat, auth());
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('unknown_provider');
    const notD = await fetch(`${gw.url}/v1/anthropic/some/path`, { headers: auth() });
    expect(notD.status).toBe(404);
  });

  it.each([
    ['GET /v1/chat/completions', 'GET', '/v1/chat/completions', 405, 'method_not_allowed', 'POST'],
    ['POST /v1/providers/health', 'POST', '/v1/providers/health', 405, 'method_not_allowed', 'GET'],
    ['DELETE /v1/approvals/apr_1/status', 'DELETE', '/v1/approvals/apr_1/status', 405, 'method_not_allowed', 'GET'],
    ['GET /v1/health/ (trailing slash)', 'GET', '/v1/health/', 404, 'not_found', null],
    ['POST /v1/messages/count_tokens (not offered)', 'POST', '/v1/messages/count_tokens', 404, 'not_found', null],
  ])('%s is not taken for a provider by the catch-all: %i %s, with or without a key', async (_, method, path, status, code, allow) => {
    for (const headers of [{}, auth()]) {
      const res = await fetch(`${gw.url}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
      expect(res.status).toBe(status);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.headers.get('x-svc-request-id')).toMatch(/^gw_/);
      const body = (await res.json()) as { error: { code: string; message: string; param: unknown } };
      expect(body.error).toMatchObject({ code, param: null });
      expect(body.error.message).toContain(path.replace(/\/$/, ''));
    }
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('GET /v1/approvals/{id}/status with an id over the path segment limit: 414 uri_too_long like any over-long segment, never "GET is not allowed; use GET"', async () => {
    const long = 'a'.repeat(600);
    for (const path of [`/v1/approvals/${long}/status`, `/v1/${long}/chat/completions`]) {
      const res = await fetch(`${gw.url}${path}`, { method: path.endsWith('/status') ? 'GET' : 'POST', headers: auth() });
      expect(res.status).toBe(414);
      expect(res.headers.get('allow')).toBeNull();
      expect(((await res.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'invalid_request_error', code: 'uri_too_long' });
    }
    // Another method on that path is still 405 naming GET.
    const other = await fetch(`${gw.url}/v1/approvals/${long}/status`, { method: 'DELETE', headers: auth() });
    expect([other.status, other.headers.get('allow')]).toEqual([405, 'GET']);
  });

  it('413 from a declared Content-Length above the limit, without reading the body', async () => {
    const status = await new Promise<{ status: number; body: string; headers: Headers }>((resolve, reject) => {
      const target = new URL(url());
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...auth(), 'content-type': 'application/json', 'content-length': String(300 * 1024 * 1024) } },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: toHeaders(res.headers) }));
        },
      );
      req.on('error', reject);
      req.write('{"model":"gpt-4o",');
    });
    expect(status.status).toBe(413);
    const error = (JSON.parse(status.body) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('request_too_large');
    expect(error.message).toMatch(/\d+ bytes \([\d.]+ MB\)/);
    expectGovernanceHeaders(status.headers, gw.orgId);
  });

  it("413 while reading a chunked body over the organization's limit", async () => {
    await gw.repos.policies.patch(asOrgId(gw.orgId), { max_body_bytes: 4096 });
    await gw.service.runtime.invalidation.publish('policy', gw.orgId);
    try {
      const target = new URL(url());
      const answer = await new Promise<{ status: number; body: string; headers: Headers }>((resolve, reject) => {
        const req = httpRequest(
          { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...auth(), 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
          (res) => {
            let body = '';
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: toHeaders(res.headers) }));
          },
        );
        req.on('error', (error) => (error.message.includes('EPIPE') || error.message.includes('ECONNRESET') ? undefined : reject(error)));
        const chunk = JSON.stringify({ ...chat, messages: [{ role: 'user', content: 'x'.repeat(2000) }] });
        for (let i = 0; i < 5; i++) req.write(chunk);
      });
      expect(answer.status).toBe(413);
      expect((JSON.parse(answer.body) as { error: { message: string } }).error.message).toContain('4096 bytes');
      expect(gw.mock.requests).toHaveLength(0);
      expectGovernanceHeaders(answer.headers, gw.orgId);
    } finally {
      await gw.repos.policies.delete(asOrgId(gw.orgId));
      await gw.service.runtime.invalidation.publish('policy', gw.orgId);
    }
  });
});
