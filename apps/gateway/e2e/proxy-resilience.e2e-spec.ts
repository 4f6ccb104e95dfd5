import OpenAI from 'openai';
import { asOrgId } from '@svc/domain';
import { UsageRecorder } from '@svc/proxy';
import { breakerState, expectGovernanceHeaders, GatewayHarness, Json, openaiClient, openaiFailure, postJson, PROVIDER_KEY, startGateway } from './harness';

const chat = (content: string) => ({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

/** Breakers, deadlines and broken streams, against the mock's failure injection. */
describe('gateway resilience', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  /** A provider's breaker record from GET /v1/providers/health. */
  const breakerOf = (provider: string): Promise<Json> => breakerState(gw, provider);

  beforeAll(async () => {
    gw = await startGateway({ env: { CIRCUIT_BREAKER_RECOVERY_SECONDS: '1', UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '400' } });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('passes 5xx bodies through, opens the breaker after 5, answers 503 circuit_breaker_open, then recovers with one probe', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 500, times: 5 } });
    for (let i = 0; i < 5; i++) {
      const res = await postJson(`${gw.url}/v1/openai/chat/completions`, chat('fail'), auth());
      expect(res.status).toBe(500);
      expect(res.body.error).toBeDefined();
    }
    const open = await postJson(`${gw.url}/v1/openai/chat/completions`, chat('refused'), auth());
    expect(open.status).toBe(503);
    expect(open.body.error).toMatchObject({ type: 'service_unavailable', code: 'circuit_breaker_open' });
    expect(Number(open.headers.get('retry-after'))).toBeGreaterThanOrEqual(0);
    expect(gw.mock.totalRequests).toBe(5);

    // One provider open among the registry's closed ones: degraded (unhealthy is when all are open).
    const health = (await (await fetch(`${gw.url}/v1/providers/health`)).json()) as Json;
    expect(health.status).toBe('degraded');
    expect(health.providers.filter((p: Json) => p.state === 'closed').length).toBeGreaterThan(5);
    expect(health.providers.find((p: Json) => p.provider === 'openai')).toMatchObject({ state: 'open', failure_threshold: 5, recovery_timeout_seconds: 1 });

    await new Promise((resolve) => setTimeout(resolve, 1200));
    const probe = await postJson(`${gw.url}/v1/openai/chat/completions`, chat('probe'), auth());
    expect(probe.status).toBe(200);
    const after = (await (await fetch(`${gw.url}/v1/providers/health`)).json()) as Json;
    expect(after.providers.find((p: Json) => p.provider === 'openai').state).toBe('closed');
    expect(after.status).toBe('healthy');
    // Last, so that the breaker has recovered for the next tests whatever this finds.
    expectGovernanceHeaders(open.headers, gw.orgId);
  });

  it('does not count 4xx against the breaker', async () => {
    gw.mock.setBehavior({ match: { format: 'anthropic' }, fail: { status: 400, times: 8 } });
    for (let i = 0; i < 8; i++) {
      const res = await postJson(`${gw.url}/v1/messages`, { model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, auth());
      expect(res.status).toBe(400);
    }
    const health = (await (await fetch(`${gw.url}/v1/providers/health`)).json()) as Json;
    expect(health.providers.find((p: Json) => p.provider === 'anthropic')?.state ?? 'closed').toBe('closed');
  });

  it('counts a server-side error inside an A or D stream against the breaker once per stream, never a client-side one', async () => {
    // Groq (D), which no other test here fails: its chat route (format A chunks) and a Responses-style stream.
    const opening = 'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n';
    const chat = (...errors: Json[]) => ['/chat/completions', opening + errors.map((error) => `data: ${JSON.stringify({ error })}\n\n`).join('')] as const;
    const event = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const created = event('response.created', { response: { id: 'resp_1', status: 'in_progress' } });
    const failed = (code: string) => ['/responses', created + event('response.failed', { response: { id: 'resp_1', status: 'failed', error: { code, message: 'failed' } } })] as const;
    const errored = (code: string) => ['/responses', created + event('error', { code, message: 'failed', param: null, sequence_number: 1 })] as const;
    const stream = async ([path, sse]: readonly [string, string]) => {
      gw.mock.setBehavior({ match: { path }, fail: { status: 200, body: sse, headers: { 'content-type': 'text/event-stream' } } });
      const body = path === '/responses' ? { model: 'llama-3.3-70b-versatile', input: 'hi' } : { model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'hi' }] };
      const res = await fetch(`${gw.url}/v1/groq${path}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
      // Relayed as sent, with its 200.
      expect([path, res.status, await res.text()]).toEqual([path, 200, sse]);
    };

    const clientSide = [
      chat({ message: 'too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' }),
      chat({ message: 'Rate limit reached', type: 'tokens', param: null, code: 'rate_limit_exceeded' }),
      chat({ message: 'filtered', type: null, param: 'prompt', code: 'content_filter' }),
      failed('rate_limit_exceeded'),
      errored('invalid_prompt'),
    ];
    for (const answer of clientSide) await stream(answer);
    expect(await breakerOf('groq')).toMatchObject({ state: 'closed', failure_count: 0 });

    const serverSide = [
      // Two error chunks, one stream: one failure.
      chat({ message: 'The server had an error', type: 'server_error', param: null, code: null }, { message: 'again', type: 'server_error' }),
      chat({ message: 'boom', code: 'server_error' }),
      chat({ object: 'error', message: 'Service Unavailable', type: 'ServiceUnavailableError', code: 503 }),
      failed('server_error'),
    ];
    for (const answer of serverSide) await stream(answer);
    expect(await breakerOf('groq')).toMatchObject({ state: 'closed', failure_count: 4 });
    await stream(errored('server_error'));
    expect(await breakerOf('groq')).toMatchObject({ state: 'open' });

    const refused = await postJson(`${gw.url}/v1/groq/chat/completions`, { model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'refused' }] }, auth());
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ type: 'service_unavailable', code: 'circuit_breaker_open' });
    expect(gw.mock.totalRequests).toBe(10);
  });

  it("counts a server-side error inside a Gemini stream against Gemini's breaker once per stream, never a client-side one", async () => {
    // Gemini (C), which no other test here fails: its stream is translated to format A for the OpenAI SDK.
    const client = openaiClient(gw, '/v1/gemini');
    const opening = `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: 'Hi' }], role: 'model' }, index: 0 }], responseId: 'r1' })}\r\n\r\n`;
    const error = (code: number | string, status: string) => `data: ${JSON.stringify({ error: { code, message: `Gemini says ${status}`, status } })}\r\n\r\n`;
    const stream = async (...errors: string[]) => {
      gw.mock.setBehavior({ match: { format: 'gemini' }, fail: { status: 200, body: opening + errors.join(''), headers: { 'content-type': 'text/event-stream' } } });
      const failure = await openaiFailure(async () => {
        for await (const chunk of await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }], stream: true })) void chunk;
      });
      // The SDK raises the translated error event (the stream began with a 200).
      expect(failure.error).toMatchObject({ message: expect.stringMatching(/^Gemini says /) });
    };

    await stream(error(429, 'RESOURCE_EXHAUSTED'));
    await stream(error(400, 'INVALID_ARGUMENT'));
    await stream(error(403, 'PERMISSION_DENIED'));
    await stream(error(429, 'RESOURCE_EXHAUSTED'));
    await stream(error('429', 'RESOURCE_EXHAUSTED'));
    expect(await breakerOf('gemini')).toMatchObject({ state: 'closed', failure_count: 0 });

    // Two error objects, one stream: one failure.
    await stream(error(503, 'UNAVAILABLE'), error(503, 'UNAVAILABLE'));
    await stream(error(500, 'INTERNAL'));
    await stream(error(504, 'DEADLINE_EXCEEDED'));
    await stream(error('503', 'UNAVAILABLE'));
    expect(await breakerOf('gemini')).toMatchObject({ state: 'closed', failure_count: 4 });
    await stream(error(503, 'UNAVAILABLE'));
    expect(await breakerOf('gemini')).toMatchObject({ state: 'open' });

    const refused = await openaiFailure(() => client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'refused' }] }));
    expect(refused.status).toBe(503);
    expect(refused.error).toMatchObject({ type: 'service_unavailable', code: 'circuit_breaker_open' });
    expect(gw.mock.totalRequests).toBe(10);
  });

  it('502 upstream_unavailable on a dropped connection, 504 upstream_timeout past the first-byte deadline', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, drop: { times: 1 } });
    const dropped = await postJson(`${gw.url}/v1/chat/completions`, chat('drop'), auth());
    expect(dropped.status).toBe(502);
    expect(dropped.body.error.code).toBe('upstream_unavailable');
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 1000 });
    const slow = await postJson(`${gw.url}/v1/chat/completions`, chat('slow'), auth());
    expect(slow.status).toBe(504);
    expect(slow.body.error.code).toBe('upstream_timeout');
  });

  it('502 upstream_unavailable when a whole answer breaks off mid-body, asked to stream or not, recorded as 502', async () => {
    // On the B route: its breaker counts these two failures, and no other test here fails B with a 5xx.
    for (const stream of [false, true]) {
      // The provider answers whole (a JSON 500, also to a request that asked to stream), announces its
      // length and cuts the connection halfway through the body.
      gw.mock.setBehavior({ match: { format: 'anthropic' }, fail: { status: 500, truncate: true } });
      const body = { model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: `cut off, stream ${stream}` }], stream };
      const res = await postJson(`${gw.url}/v1/messages`, body, auth());
      expect(res.status).toBe(502);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_unavailable', message: expect.stringMatching(/^anthropic: upstream connection error/) });
      expect(gw.mock.totalRequests).toBe(1);
      const recorder = gw.service.apps[0].get(UsageRecorder);
      await recorder.flush();
      const record = await gw.repos.usage.findById(asOrgId(gw.orgId), res.headers.get('x-svc-request-id') as string);
      expect(record).toMatchObject({ status_code: 502, stream, cost: 0 });
      gw.mock.reset();
    }
  });

  it('ends a stream broken upstream with an error event that the SDK raises', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, abort: { afterChunks: 2 } });
    const client = new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/v1`, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'break me please, it is a long message' }], stream: true });
    await expect(
      (async () => {
        for await (const chunk of stream) void chunk;
      })(),
    ).rejects.toThrow(/upstream stream failed/);
  });

  it('aborts the upstream request when the client goes away, and records what was known', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 300 });
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat('a slow stream that the client abandons'), stream: true }),
      signal: controller.signal,
    });
    const requestId = res.headers.get('x-svc-request-id') as string;
    const reader = res.body?.getReader();
    await reader?.read();
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const recorder = gw.service.apps[0].get(UsageRecorder);
    await recorder.flush();
    const record = await gw.repos.usage.findById(asOrgId(gw.orgId), requestId);
    expect(record).toMatchObject({ status_code: 499, stream: true });
  });
});
