import type { IncomingHttpHeaders } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { expectGovernanceHeaders, GatewayHarness, openaiClient, PROVIDER_KEY, rawRequest as raw, startGateway } from './harness';

/** A provider's own headers: request id, processing time, its rate-limit counters (other names than the gateway's). */
const VENDOR = {
  'x-ratelimit-limit-requests': '10000',
  'x-ratelimit-remaining-requests': '9999',
  'x-ratelimit-reset-requests': '6ms',
  'x-envoy-upstream-service-time': '41',
};

/** Names the gateway sets itself, or that are not the provider's to set on the gateway's answer. */
const COLLIDING = {
  'x-ratelimit-limit': '999999',
  'x-ratelimit-remaining': '999998',
  'x-ratelimit-reset': '1',
  'x-svc-request-id': 'gw_forged',
  'x-svc-cost': '99',
  'x-svc-approval-id': 'appr_forged',
  'x-gateway-org': 'org_forged',
  'idempotent-replayed': 'true',
  'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'x-request-id',
  // Hop-by-hop: `keep-alive`, and `x-hop`, made hop-by-hop by naming it in `Connection` (RFC 9110 §7.6.1).
  connection: 'keep-alive, x-hop',
  'keep-alive': 'timeout=5',
  'x-hop': 'hop-value',
};

/** What a stream's framing headers must stay, whatever the provider sent for them. */
const STREAM_OWN = { 'cache-control': 'no-store', 'x-accel-buffering': 'yes' };


/** `IncomingHttpHeaders` as a fetch `Headers`, for the harness's governance assertions. */
function asHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
  return out;
}

/**
 * What the gateway returns besides the body on format A, C and D routes: the provider's response
 * headers on whole answers and streams alike, below the gateway's own, which nothing the provider
 * sends replaces; and, on B routes, the 401 for a missing key naming `x-api-key` too.
 */
describe('gateway response headers', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const lastSeq = () => gw.mock.requests.at(-1)?.seq;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it.each([
    ['A, generic route', '/v1', 'gpt-4o-mini'],
    ['A, provider route', '/v1/openai', 'gpt-4o-mini'],
    ['D, provider route', '/v1/mistral', 'mistral-small-latest'],
    ['D, explicit provider/model', '/v1', 'groq/llama-3.3-70b-versatile'],
  ])("%s: a streamed answer carries the provider's x-request-id and headers, as a whole one does (OpenAI SDK)", async (_label, path, model) => {
    const client = openaiClient(gw, path);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'headers please' }];
    const call = client.chat.completions.create({ model, messages });
    expect((await call)._request_id).toBe(`req_mock_${lastSeq()}`);
    const whole = await call.withResponse();
    expect(whole.response.headers.get('openai-processing-ms')).toBe('0');

    const { data: stream, response } = await client.chat.completions.create({ model, messages, stream: true }).withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('mock reply to: headers please');
    expect(response.headers.get('x-request-id')).toBe(`req_mock_${lastSeq()}`);
    expect(response.headers.get('openai-processing-ms')).toBe('0');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expectGovernanceHeaders(response.headers, gw.orgId);
    expectGovernanceHeaders(whole.response.headers, gw.orgId);
  });

  it("relays the provider's headers on embeddings and on the D catch-all, streamed too", async () => {
    const embeddings = await openaiClient(gw).embeddings.create({ model: 'text-embedding-3-small', input: 'vector' }).withResponse();
    expect(embeddings.response.headers.get('x-request-id')).toBe(`req_mock_${lastSeq()}`);
    // The catch-all forwards any path; a streamed answer of one keeps the provider's headers too.
    const streamed = await raw(gw, 'POST', '/v1/mistral/v1/chat/completions', auth(), { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'x' }], stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers['content-type']).toBe('text/event-stream');
    expect(streamed.headers['x-request-id']).toBe(`req_mock_${lastSeq()}`);
  });

  it.each([false, true])('stream=%s: gateway headers, SSE framing and hop-by-hop rules win over what the provider sends', async (stream) => {
    gw.mock.setBehavior({ headers: { ...VENDOR, ...COLLIDING, ...(stream ? STREAM_OWN : {}) } });
    const res = await raw(gw, 'POST', '/v1/chat/completions', auth(), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'collide' }], stream });
    expect(res.status).toBe(200);
    const h = res.headers;
    // The provider's own names pass, beside the gateway's X-RateLimit-* of the same family.
    expect(h).toMatchObject({ ...VENDOR, 'x-request-id': `req_mock_${lastSeq()}` });
    expectGovernanceHeaders(asHeaders(h), gw.orgId);
    expect(h['x-ratelimit-limit']).toBe('5000'); // enterprise RPM, not the provider's 999999
    expect(Number(h['x-ratelimit-remaining'])).toBeLessThan(5000);
    expect(Number(h['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 5);
    expect(h['x-svc-request-id']).not.toBe('gw_forged');
    expect(Number(h['x-svc-cost'])).toBeLessThan(1);
    for (const name of ['x-svc-approval-id', 'idempotent-replayed', 'strict-transport-security', 'access-control-allow-origin', 'access-control-expose-headers', 'x-hop']) {
      expect({ name, value: h[name] }).toEqual({ name, value: undefined });
    }
    // The gateway's own connection: Node may announce its keep-alive timeout, never the provider's.
    expect(h.connection).toBe('keep-alive');
    expect(h['keep-alive']).not.toBe('timeout=5');
    if (stream) {
      expect(h).toMatchObject({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
      expect(res.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    } else {
      expect(h['content-type']).toBe('application/json');
      expect(JSON.parse(res.body).object).toBe('chat.completion');
    }
  });

  it('stream=true: an early upstream error keeps its status and provider headers, as on a whole answer', async () => {
    for (const stream of [false, true]) {
      gw.mock.setBehavior({ fail: { status: 429, headers: { 'retry-after': '7', 'x-request-id': 'req_limited', 'x-ratelimit-limit': '999999' } } });
      const res = await raw(gw, 'POST', '/v1/chat/completions', auth(), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'limited' }], stream });
      expect({ stream, status: res.status, type: res.headers['content-type'], id: res.headers['x-request-id'], retry: res.headers['retry-after'] }).toEqual({
        stream,
        status: 429,
        type: 'application/json',
        id: 'req_limited',
        retry: '7',
      });
      expect(res.headers['x-ratelimit-limit']).toBe('5000');
      expectGovernanceHeaders(asHeaders(res.headers), gw.orgId);
    }
  });

  it("provider C (gemini): none of Gemini's headers reach the format-A client, streamed or whole; the gateway's do", async () => {
    gw.mock.setBehavior({ headers: { 'server-timing': 'gfet4t7; dur=812', vary: 'Origin, X-Origin, Referer', 'x-goog-trace': 'abc', 'x-request-id': 'not-openai' } });
    const client = openaiClient(gw, '/v1/gemini');
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'gemini headers' }];
    const call = client.chat.completions.create({ model: 'gemini-2.5-flash', messages });
    expect((await call)._request_id).toBeNull();
    const whole = await call.withResponse();
    const { data: stream, response } = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages, stream: true }).withResponse();
    for await (const chunk of stream) expect(chunk.object).toBe('chat.completion.chunk');
    for (const headers of [whole.response.headers, response.headers]) {
      for (const name of ['server-timing', 'vary', 'x-goog-trace', 'x-request-id']) expect({ name, value: headers.get(name) }).toEqual({ name, value: null });
      expectGovernanceHeaders(headers, gw.orgId);
    }
    expect(response.headers.get('content-type')).toBe('text/event-stream');
  });

  it("an idempotent replay carries the stored answer's provider headers, under the gateway's own", async () => {
    gw.mock.setBehavior({ headers: VENDOR });
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'once' }] };
    const headers = { ...auth(), 'Idempotency-Key': `idem-${Date.now()}` };
    const first = await raw(gw, 'POST', '/v1/chat/completions', headers, body);
    const replay = await raw(gw, 'POST', '/v1/chat/completions', headers, body);
    expect(gw.mock.requests).toHaveLength(1);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(replay.headers).toMatchObject({ ...VENDOR, 'x-request-id': first.headers['x-request-id'], 'content-type': 'application/json' });
    expect(replay.headers['x-svc-request-id']).not.toBe(first.headers['x-svc-request-id']);
    expectGovernanceHeaders(asHeaders(replay.headers), gw.orgId);
  });

  it("an idempotent replay goes without the provider headers whose names cannot be a stored field ('$', '.')", async () => {
    const odd = { 'x-trace.id': 'dotted', $meta: 'dollar' };
    gw.mock.setBehavior({ headers: { ...VENDOR, ...odd } });
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'odd names' }] };
    const headers = { ...auth(), 'Idempotency-Key': `idem-odd-${Date.now()}` };
    const first = await raw(gw, 'POST', '/v1/chat/completions', headers, body);
    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject(odd);
    const replay = await raw(gw, 'POST', '/v1/chat/completions', headers, body);
    expect(gw.mock.requests).toHaveLength(1);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(replay.headers).toMatchObject(VENDOR);
    expect(replay.headers['x-trace.id']).toBeUndefined();
    expect(replay.headers.$meta).toBeUndefined();
  });

  describe('401 for a missing gateway key', () => {
    const GENERIC = 'Missing gateway API key. Send it in the X-SVC-API-Key header, Authorization: Bearer <API_KEY>, or the api_key query parameter.';
    const B_ROUTES = 'Missing gateway API key. Send it in the X-SVC-API-Key header, Authorization: Bearer <API_KEY>, the x-api-key header, or the api_key query parameter.';

    it.each([
      ['POST', '/v1/messages', B_ROUTES],
      ['POST', '/v1/anthropic/messages', B_ROUTES],
      ['POST', '/v1/anthropic/v1/messages', B_ROUTES],
      ['GET', '/v1/anthropic/v1/models', B_ROUTES],
      ['POST', '/v1/chat/completions', GENERIC],
      ['POST', '/v1/anthropic/chat/completions', GENERIC],
      ['POST', '/v1/embeddings', GENERIC],
      ['POST', '/v1/mistral/v1/fim/completions', GENERIC],
      // The root list is also the Anthropic SDK's with baseURL {base_url}: it reads x-api-key too.
      ['GET', '/v1/models', B_ROUTES],
      ['GET', '/v1/openai/models', GENERIC],
    ])('%s %s names the locations read there', async (method, path, message) => {
      const body = method === 'POST' ? { model: path.includes('messages') ? 'claude-sonnet-4-6' : 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] } : undefined;
      const res = await raw(gw, method, path, { 'x-api-key': 'sk-ant-provider-only' }, body);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error).toMatchObject({ message, type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
    });

    it.each(['', '/v1/anthropic'])('the Anthropic SDK (baseURL {base_url}%s) with only a provider key reads x-api-key in the message', async (suffix) => {
      const sdk = new Anthropic({ apiKey: 'sk-ant-provider-only', baseURL: `${gw.url}${suffix}`, maxRetries: 0 });
      const error = await sdk.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((error as InstanceType<typeof Anthropic.AuthenticationError>).apiMessage).toBe(B_ROUTES);
      expect(gw.mock.requests).toHaveLength(0);
    });
  });
});
