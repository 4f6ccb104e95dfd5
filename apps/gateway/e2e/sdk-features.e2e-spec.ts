import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { createOrg, GatewayHarness, openaiClient, openaiFailure, PROVIDER_KEY, recordOf, setPolicy, startGateway } from './harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a user of the OpenAI SDK calls beyond `create()`, on the format-A passthrough (`/v1`, provider A). */
describe('gateway with the OpenAI SDK: helpers, tools, n, structured output, embeddings, aborts, errors', () => {
  let gw: GatewayHarness;
  let client: OpenAI;
  /** The request id of the client's last answer (the stream helpers give no access to the response). */
  let lastRequestId: string | null = null;
  const weather: OpenAI.ChatCompletionFunctionTool = {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  };

  beforeAll(async () => {
    gw = await startGateway();
    client = new OpenAI({
      apiKey: gw.key,
      baseURL: `${gw.url}/v1`,
      defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY },
      maxRetries: 0,
      fetch: async (url: string | URL | Request, init?: RequestInit) => {
        const res = await fetch(url, init);
        lastRequestId = res.headers.get('x-svc-request-id');
        return res;
      },
    });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('chat.completions.stream(): content events, finalChatCompletion() with the usage the gateway asked for, recorded from it', async () => {
    const stream = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Stream helper' }] });
    const deltas: string[] = [];
    stream.on('content.delta', ({ delta }) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(deltas.join('')).toBe('mock reply to: Stream helper');
    expect(final.choices[0].message.content).toBe('mock reply to: Stream helper');
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
    const record = await recordOf(gw, lastRequestId);
    expect(record).toMatchObject({ stream: true, status_code: 200, usage_source: 'provider', input_tokens: final.usage?.prompt_tokens, output_tokens: final.usage?.completion_tokens });
  });

  it('tool calls, whole and streamed: finalChatCompletion() assembles the arguments, runTools() sends the results back', async () => {
    const params = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'call get_weather' }], tools: [weather] };
    const whole = await client.chat.completions.create(params);
    const stream = client.chat.completions.stream(params);
    const done: string[] = [];
    stream.on('tool_calls.function.arguments.done', (event) => done.push(event.arguments));
    const streamed = await stream.finalChatCompletion();
    for (const completion of [whole, streamed]) {
      expect(completion.choices[0].finish_reason).toBe('tool_calls');
      const call = completion.choices[0].message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      expect([call.function.name, JSON.parse(call.function.arguments)]).toEqual(['get_weather', { city: 'mock city' }]);
    }
    expect(done).toEqual(['{"city":"mock city"}']);
    expect(streamed.usage?.completion_tokens).toBe(whole.usage?.completion_tokens);

    const runner = client.chat.completions.runTools({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'call get_weather' }],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: weather.function.parameters as Record<string, unknown>, function: (args: { city: string }) => `sunny in ${args.city}`, parse: JSON.parse } }],
    });
    expect(await runner.finalContent()).toBe('mock reply to: call get_weather');
    const sent = gw.mock.requests.at(-1)?.body as { messages: { role: string; content?: string }[] };
    expect(sent.messages.at(-1)).toMatchObject({ role: 'tool', content: 'sunny in mock city' });
  });

  it('n > 1: every choice, whole and streamed, charged the usage of all of them', async () => {
    const params = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'two please' }], n: 2 };
    const { data: whole, response } = await client.chat.completions.create(params).withResponse();
    expect(whole.choices.map((choice) => choice.message.content)).toEqual(['mock reply to: two please', 'mock reply to: two please (2)']);
    expect((await recordOf(gw, response.headers.get('x-svc-request-id'))).output_tokens).toBe(whole.usage?.completion_tokens);
    const final = await client.chat.completions.stream(params).finalChatCompletion();
    expect(final.choices.map((choice) => choice.message.content)).toEqual(['mock reply to: two please', 'mock reply to: two please (2)']);
    expect(await recordOf(gw, lastRequestId)).toMatchObject({ usage_source: 'provider', output_tokens: final.usage?.completion_tokens });
  });

  it('chat.completions.parse() with a json_schema response_format (zod), forwarded unchanged', async () => {
    const format = zodResponseFormat(z.object({ city: z.string(), population: z.number() }), 'city_info');
    const parsed = await client.chat.completions.parse({ model: 'gpt-4o', messages: [{ role: 'user', content: 'A city' }], response_format: format });
    expect(parsed.choices[0].message.parsed).toEqual({ city: 'mock city', population: 1 });
    expect((gw.mock.requests.at(-1)?.body as { response_format: unknown }).response_format).toEqual(JSON.parse(JSON.stringify(format)));
  });

  it('embeddings.create with an array input, base64 (the SDK default, decoded) and float, charged every input', async () => {
    const input = ['first text', 'a second, longer text'];
    const { data: decoded, response } = await client.embeddings.create({ model: 'text-embedding-3-small', input }).withResponse();
    const floats = await client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'float' });
    expect(decoded.data.map((item) => item.index)).toEqual([0, 1]);
    expect(decoded.data.map((item) => item.embedding)).toEqual(floats.data.map((item) => item.embedding));
    const base64 = await client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'base64' });
    expect(typeof base64.data[0].embedding).toBe('string');
    expect(gw.mock.requests.map((request) => (request.body as { encoding_format?: string }).encoding_format)).toEqual(['base64', 'float', 'base64']);
    const record = await recordOf(gw, response.headers.get('x-svc-request-id'));
    expect(record).toMatchObject({ endpoint: expect.stringContaining('embeddings'), input_tokens: decoded.usage.prompt_tokens, output_tokens: 0 });
  });

  it('.asResponse() gives the raw answer with the governance headers', async () => {
    const raw = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'raw' }] }).asResponse();
    expect(raw.status).toBe(200);
    expect(raw.headers.get('x-svc-request-id')).toMatch(/^gw_/);
    expect(Number(raw.headers.get('x-svc-cost'))).toBeGreaterThan(0);
    expect(((await raw.json()) as { object: string }).object).toBe('chat.completion');
  });

  it("stream.controller.abort() mid-stream: the gateway aborts the upstream request and records 499", async () => {
    const org = await createOrg(gw, 'growth');
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 1000 });
    const { data: stream, response } = await openaiClient(gw, '/v1', { apiKey: org.key })
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abandon me' }], stream: true })
      .withResponse();
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      stream.controller.abort();
    }
    const upstream = gw.mock.requests.at(-1);
    for (let i = 0; i < 100 && upstream?.clientClosedAt === undefined; i++) await sleep(10);
    expect(upstream?.clientClosedAt).toBeDefined();
    const record = await recordOf(gw, response.headers.get('x-svc-request-id'), org.orgId);
    expect(record).toMatchObject({ status_code: 499, stream: true, usage_source: 'estimate' });
  });

  it('the SDK retries an upstream 429 after its retry-after-ms and a 503 after its retry-after, then succeeds', async () => {
    const retrying = openaiClient(gw, '/v1', { maxRetries: 2 });
    gw.mock.setBehavior([
      { match: { format: 'openai' }, fail: { status: 429, headers: { 'retry-after-ms': '300' }, times: 1 } },
    ]);
    const started = Date.now();
    const completion = await retrying.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'retry me' }] });
    expect(completion.choices[0].message.content).toBe('mock reply to: retry me');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 503, headers: { 'retry-after': '1' }, times: 1 } });
    const again = Date.now();
    await retrying.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'retry me' }] });
    expect(Date.now() - again).toBeGreaterThanOrEqual(990);
    expect(gw.mock.requests).toHaveLength(4);
  });

  it("with an Idempotency-Key, the provider's 429 is not stored: the SDK's retry reaches the provider, and its answer is what a repeat replays", async () => {
    const retrying = openaiClient(gw, '/v1', { maxRetries: 2 });
    const params = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'idempotent retry' }] };
    const options = { headers: { 'Idempotency-Key': `sdk-retry-${Date.now()}` } };
    for (const status of [429, 408]) {
      gw.mock.reset();
      gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status, headers: { 'retry-after-ms': '10' }, times: 1 } });
      const { data, response } = await retrying.chat.completions.create(params, { ...options, headers: { 'Idempotency-Key': `${options.headers['Idempotency-Key']}-${status}` } }).withResponse();
      expect({ content: data.choices[0].message.content, replayed: response.headers.get('idempotent-replayed') }).toEqual({ content: 'mock reply to: idempotent retry', replayed: null });
      expect(gw.mock.requests).toHaveLength(2);
      const repeat = await retrying.chat.completions.create(params, { headers: { 'Idempotency-Key': `${options.headers['Idempotency-Key']}-${status}` } }).withResponse();
      expect({ id: repeat.data.id, replayed: repeat.response.headers.get('idempotent-replayed') }).toEqual({ id: data.id, replayed: 'true' });
      expect(gw.mock.requests).toHaveLength(2);
    }
  });

  it('maxRetries: 0: APIError subclasses with status, code, type and param of the error table', async () => {
    const org = await createOrg(gw, 'growth');
    const sdk = openaiClient(gw, '/v1', { apiKey: org.key });
    const ask = (model = 'gpt-4o') => () => sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], max_tokens: 5 });

    const unauthenticated = await openaiFailure(() => openaiClient(gw, '/v1', { apiKey: 'svc_sk_unknownkeyunknownkey' }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }));
    expect(unauthenticated).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthenticated).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'authentication_error' });

    const mismatch = await openaiFailure(() => openaiClient(gw, '/v1/openai', { apiKey: org.key }).chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }] }));
    expect(mismatch).toBeInstanceOf(OpenAI.BadRequestError);
    expect(mismatch).toMatchObject({ status: 400, code: 'provider_mismatch', type: 'invalid_request_error' });

    await setPolicy(gw, org.orgId, { allowed_models: ['gpt-4o-mini'] });
    const blocked = await openaiFailure(ask());
    expect(blocked).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(blocked).toMatchObject({ status: 403, code: 'model_not_allowed', type: 'permission_error' });
    expect((blocked.error as { gateway_error_code?: string }).gateway_error_code).toBe('GW_MODEL_001');

    await setPolicy(gw, org.orgId, { rpm_limit: 1 });
    await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 }).catch(() => undefined);
    const limited = await openaiFailure(ask());
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited).toMatchObject({ status: 429, code: 'rate_limit', type: 'rate_limit_error' });
    expect(Number(limited.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers?.get('x-ratelimit-remaining')).toBe('0');
  });
});
