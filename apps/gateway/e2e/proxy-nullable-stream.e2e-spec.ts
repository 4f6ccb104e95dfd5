import { GatewayHarness, Json, openaiClient, PROVIDER_KEY, recordOf, startGateway } from './harness';

const messages = [{ role: 'user', content: 'Hello there' }];

/**
 * Format A's API takes `stream: null` (and `stream_options: null`) as not streaming, as the gateway
 * already takes `null` for `temperature`, `max_tokens` and `max_completion_tokens`; the body goes up
 * as the client sent it. Format B (`/v1/messages`) keeps a boolean `stream`.
 */
describe('gateway proxy: stream null on format A', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const raw = async (path: string, body: string) => {
    const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body });
    return { status: res.status, type: res.headers.get('content-type'), requestId: res.headers.get('x-svc-request-id'), body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it.each([
    ['/v1/chat/completions', 'gpt-4o'],
    ['/v1/openai/chat/completions', 'gpt-4o'],
    ['/v1/groq/chat/completions', 'llama-3.3-70b-versatile'],
  ])('%s: stream null (with stream_options null or not) is a whole answer, the body forwarded byte for byte', async (path, model) => {
    for (const extra of ['"stream" : null', '"stream": null, "stream_options": null']) {
      gw.mock.reset();
      const body = `{"model": "${model}",  "messages": ${JSON.stringify(messages)}, ${extra}}`;
      const res = await raw(path, body);
      expect({ extra, status: res.status, type: res.type, object: res.body.object }).toEqual({ extra, status: 200, type: expect.stringContaining('application/json'), object: 'chat.completion' });
      expect(gw.mock.requests).toHaveLength(1);
      const upstream = gw.mock.requests[0];
      expect(upstream.body).toEqual(JSON.parse(body));
      expect(upstream.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect((await recordOf(gw, res.requestId)).stream).toBe(false);
    }
  });

  it('stream true with stream_options null streams, with the usage chunk the gateway asks for', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true, stream_options: null }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(await res.text()).toContain('data: [DONE]');
    expect(gw.mock.requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('the official OpenAI SDK sends stream: null and gets a chat completion', async () => {
    const client = openaiClient(gw);
    const completion = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there' }], stream: null, temperature: null });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message.content).toBe('mock reply to: Hello there');
    expect(gw.mock.requests.at(-1)?.body).toMatchObject({ stream: null, temperature: null });
  });

  it('/v1/gemini/chat/completions (translated to provider C): stream null is a whole answer', async () => {
    const res = await raw('/v1/gemini/chat/completions', JSON.stringify({ model: 'gemini-2.0-flash', messages, stream: null, stream_options: null }));
    expect({ status: res.status, object: res.body.object }).toEqual({ status: 200, object: 'chat.completion' });
    expect(gw.mock.requests.at(-1)?.path).toContain(':generateContent');
  });

  it('anything else than a boolean or null is still a 400 naming stream on format A, and nothing goes upstream', async () => {
    for (const value of ['"true"', '1', '0', '{}', '[]']) {
      const res = await raw('/v1/chat/completions', `{"model": "gpt-4o", "messages": ${JSON.stringify(messages)}, "stream": ${value}}`);
      expect({ value, status: res.status, error: res.body.error }).toEqual({
        value,
        status: 400,
        error: { message: '`stream` must be a boolean', type: 'invalid_request_error', param: 'stream', code: 'invalid_request' },
      });
    }
    expect(gw.mock.requests).toHaveLength(0);
  });

  it.each(['/v1/messages', '/v1/anthropic/messages'])('%s (format B) keeps stream a boolean: null is a 400 naming stream', async (path) => {
    const res = await raw(path, JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 20, messages, stream: null }));
    expect({ status: res.status, error: res.body.error }).toEqual({
      status: 400,
      error: { message: '`stream` must be a boolean', type: 'invalid_request_error', param: 'stream', code: 'invalid_request' },
    });
    expect(gw.mock.requests).toHaveLength(0);
    const sdkLike = await raw(path, JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 20, messages, stream: false }));
    expect(sdkLike.status).toBe(200);
  });

  it('the official OpenAI SDK streams with stream_options: null', async () => {
    const client = openaiClient(gw);
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Stream me' }], stream: true, stream_options: null });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('mock reply to: Stream me');
  });
});
