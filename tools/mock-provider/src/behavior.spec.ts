import { request } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mockReply, startMockProvider, type MockProvider } from './index';
import { ANTHROPIC_HEADERS, OPENAI_HEADERS, parseSse, postJson, readTimed } from './spec-helpers';

describe('mock provider: behaviours', () => {
  let mock: MockProvider;
  let openai: OpenAI;
  let anthropic: Anthropic;
  const chat = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'behave' }] };
  const message = { model: 'claude-mock', max_tokens: 64, messages: [{ role: 'user' as const, content: 'behave' }] };
  const gemini = { contents: [{ role: 'user', parts: [{ text: 'behave' }] }] };

  beforeAll(async () => {
    mock = await startMockProvider();
    openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${mock.url}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: mock.url, maxRetries: 0 });
  });

  afterAll(async () => {
    await mock.close();
  });

  beforeEach(() => mock.reset());

  it('waits the configured latency before the first byte', async () => {
    mock.setBehavior({ latencyMs: 250 });
    let started = Date.now();
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...OPENAI_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true }),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    await res.text();

    started = Date.now();
    const completion = await openai.chat.completions.create(chat);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(completion.choices[0].message.content).toBe(mockReply('behave'));
  });

  it('fails the next request with an OpenAI-format error the SDK maps to its status', async () => {
    mock.setBehavior({ fail: { status: 429, headers: { 'retry-after': '7' } } });
    const err = await openai.chat.completions.create(chat).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('7');
    // times defaults to 1: the next request is answered normally.
    const ok = await openai.chat.completions.create(chat);
    expect(ok.choices[0].message.content).toBe(mockReply('behave'));
  });

  it('uses the provider format of the route for injected failures (Anthropic 529, Gemini 503)', async () => {
    mock.setBehavior({ fail: { status: 529, times: 2 } });
    const err = await anthropic.messages.create(message).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err).toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } });

    mock.setBehavior({ fail: { status: 503, message: 'try later' } });
    const res = await postJson(`${mock.url}/v1beta/models/gemini-2.0-flash:generateContent?key=k`, gemini);
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ error: { code: 503, message: 'try later', status: 'UNAVAILABLE' } });
  });

  it('counts failures: the SDK retries through N injected 503s and the counter runs out', async () => {
    mock.setBehavior({ fail: { status: 503, times: 2, headers: { 'retry-after-ms': '5' } } });
    const retrying = new OpenAI({ apiKey: 'sk-test', baseURL: `${mock.url}/v1`, maxRetries: 2 });
    const completion = await retrying.chat.completions.create(chat);
    expect(completion.choices[0].message.content).toBe(mockReply('behave'));
    expect(mock.requests).toHaveLength(3);
    expect(mock.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
    expect(mock.getBehavior()[0].fail).toMatchObject({ status: 503, times: 0 });
  });

  it('sends a custom failure body and headers as given', async () => {
    mock.setBehavior({ fail: { status: 502, body: '<html>bad gateway</html>', headers: { 'x-upstream': 'lb' } } });
    const res = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: OPENAI_HEADERS, body: '{}' });
    expect(res.status).toBe(502);
    expect(res.headers.get('x-upstream')).toBe('lb');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('<html>bad gateway</html>');
  });

  it('fails in the middle of a whole answer (truncate: half the announced body, then the connection is cut)', async () => {
    mock.setBehavior({ fail: { status: 500, truncate: true } });
    const { status, announced, received, error } = await new Promise<{ status: number; announced: number; received: number; error: string }>((resolve) => {
      const req = request(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: OPENAI_HEADERS }, (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => (received += chunk.length));
        res.on('error', (err) => resolve({ status: res.statusCode ?? 0, announced: Number(res.headers['content-length']), received, error: err.message }));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, announced: Number(res.headers['content-length']), received, error: '' }));
      });
      req.end(JSON.stringify(chat));
    });
    expect(status).toBe(500);
    expect(received).toBe(Math.floor(announced / 2));
    expect(error).toMatch(/aborted/);
    expect(mock.requests[0].clientClosedAt).toBeUndefined();
    // Counted like any failure: the next request is answered whole.
    expect((await openai.chat.completions.create(chat)).object).toBe('chat.completion');
  });

  it('drops the connection without a response', async () => {
    mock.setBehavior({ drop: { times: 1 } });
    const err = await openai.chat.completions.create(chat).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(mock.requests).toHaveLength(1);
    const ok = await openai.chat.completions.create(chat);
    expect(ok.object).toBe('chat.completion');
  });

  it('aborts a stream after K chunks (OpenAI SDK sees K chunks, then an error)', async () => {
    mock.setBehavior({ abort: { afterChunks: 3 } });
    const stream = await openai.chat.completions.create({ ...chat, stream: true });
    const received: string[] = [];
    const consume = async (): Promise<void> => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    };
    await expect(consume()).rejects.toThrow();
    expect(received).toEqual(['', 'mock ', 'reply ']);
    // Only streaming requests consume the abort; the counter is spent now.
    const next = await openai.chat.completions.create({ ...chat, stream: true });
    let text = '';
    for await (const chunk of next) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(mockReply('behave'));
  });

  it('aborts an Anthropic stream mid-way (SDK rejects, raw client saw exactly K events)', async () => {
    mock.setBehavior({ abort: { afterChunks: 4, times: 2 } });
    await expect(anthropic.messages.stream(message).finalMessage()).rejects.toThrow();

    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { ...ANTHROPIC_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ ...message, stream: true }),
    });
    expect(res.status).toBe(200);
    let text = '';
    const reader = res.body?.getReader();
    const decoder = new TextDecoder();
    const read = async (): Promise<void> => {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) return;
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    await expect(read()).rejects.toThrow();
    expect(parseSse(text).map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
    ]);
  });

  it('drips stream chunks with the configured delay', async () => {
    mock.setBehavior({ chunkDelayMs: 80 });
    const started = Date.now();
    const stream = await openai.chat.completions.create({ ...chat, stream: true });
    const stamps: number[] = [];
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      stamps.push(Date.now());
    }
    // role chunk, 4 content chunks (`mock `, `reply `, `to: `, `behave`), finish chunk; then [DONE].
    expect(stamps).toHaveLength(6);
    // Chunk i leaves i delays after the first, so it cannot arrive sooner (a busy machine can only
    // deliver later, and two late chunks may arrive close together: gaps between arrivals prove nothing).
    stamps.forEach((stamp, i) => expect(stamp - started).toBeGreaterThanOrEqual(i * 80 - 2));
    expect(Date.now() - started).toBeGreaterThanOrEqual(6 * 80 - 20);

    const res = await fetch(`${mock.url}/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse&key=k`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(gemini),
    });
    const { arrivals } = await readTimed(res);
    expect(arrivals.length).toBeGreaterThanOrEqual(4);
    expect(arrivals[arrivals.length - 1].at - arrivals[0].at).toBeGreaterThanOrEqual(3 * 80 - 20);
  });

  it('limits a rule to matching requests (path, format, method, path regex)', async () => {
    mock.setBehavior({ match: { path: '/v1/messages' }, fail: { status: 500, times: -1 } });
    expect((await openai.chat.completions.create(chat)).object).toBe('chat.completion');
    for (let i = 0; i < 2; i++) {
      await expect(anthropic.messages.create(message)).rejects.toMatchObject({ status: 500 });
    }

    mock.setBehavior({ match: { format: 'gemini', method: 'post' }, fail: { status: 429, times: -1 } });
    expect((await postJson(`${mock.url}/v1beta/models/g:generateContent?key=k`, gemini)).status).toBe(429);
    expect((await postJson(`${mock.url}/v1/messages`, message, ANTHROPIC_HEADERS)).status).toBe(200);

    mock.setBehavior({ match: { pathRegex: '^/mistral/.*/completions$' }, fail: { status: 401 } });
    expect((await postJson(`${mock.url}/groq/v1/chat/completions`, chat, OPENAI_HEADERS)).status).toBe(200);
    expect((await postJson(`${mock.url}/mistral/v1/chat/completions`, chat, OPENAI_HEADERS)).status).toBe(401);
  });

  it('applies the first matching rule of a list, including reply overrides', async () => {
    mock.setBehavior([
      { match: { route: 'anthropic.messages' }, reply: 'from rule one' },
      { match: { path: /chat\/completions$/ }, reply: 'from rule two' },
      { fail: { status: 418, times: -1 } },
    ]);
    const b = await anthropic.messages.create(message);
    expect(b.content).toEqual([{ type: 'text', text: 'from rule one' }]);
    const a = await openai.chat.completions.create(chat);
    expect(a.choices[0].message.content).toBe('from rule two');
    expect((await openai.embeddings.create({ model: 'e', input: 'x' }).catch((e: unknown) => e)) as object).toMatchObject({
      status: 418,
    });
    expect(mock.getBehavior()[1].match).toEqual({ pathRegex: 'chat\\/completions$' });
    mock.setBehavior(null);
    expect(mock.getBehavior()).toEqual([]);
  });

  it('adds a rule\'s headers to whole, streamed and failed answers, over the mock\'s own', async () => {
    mock.setBehavior({ headers: { 'x-request-id': 'req_fixed', 'x-vendor': 'v' } });
    const whole = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: OPENAI_HEADERS, body: JSON.stringify(chat) });
    const streamed = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: OPENAI_HEADERS, body: JSON.stringify({ ...chat, stream: true }) });
    for (const res of [whole, streamed]) {
      expect([res.status, res.headers.get('x-request-id'), res.headers.get('x-vendor')]).toEqual([200, 'req_fixed', 'v']);
      await res.arrayBuffer();
    }
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    mock.setBehavior({ headers: { 'x-vendor': 'v', 'retry-after': '1' }, fail: { status: 429, headers: { 'retry-after': '9' } } });
    const failed = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: OPENAI_HEADERS, body: JSON.stringify(chat) });
    expect([failed.status, failed.headers.get('x-vendor'), failed.headers.get('retry-after')]).toEqual([429, 'v', '9']);
    expect(() => mock.setBehavior({ headers: { 'x-n': 1 as never } })).toThrow('headers must map names to strings');
  });

  it('rejects invalid rules and keeps the previous ones', () => {
    mock.setBehavior({ latencyMs: 5 });
    expect(() => mock.setBehavior({ latency: 5 } as never)).toThrow('unknown field latency');
    expect(() => mock.setBehavior({ fail: { status: 1000 } })).toThrow('fail.status');
    expect(() => mock.setBehavior({ fail: { status: 500, truncate: 'yes' as never } })).toThrow('fail.truncate');
    expect(() => mock.setBehavior({ abort: {} as never })).toThrow('abort.afterChunks');
    expect(() => mock.setBehavior({ match: { pathRegex: '(' } })).toThrow('pathRegex');
    expect(mock.getBehavior()).toEqual([{ latencyMs: 5 }]);
  });
});
