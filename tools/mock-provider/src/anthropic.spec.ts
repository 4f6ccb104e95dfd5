import Anthropic from '@anthropic-ai/sdk';
import { countTokens, mockReply, startMockProvider, type MockProvider } from './index';
import { ANTHROPIC_HEADERS, parseSse, postJson } from './spec-helpers';

describe('mock provider: format B (Anthropic messages) through the official SDK', () => {
  let mock: MockProvider;
  let client: Anthropic;

  beforeAll(async () => {
    mock = await startMockProvider({ models: ['claude-mock-1', 'claude-mock-2', 'gpt-4o'] });
    client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: mock.url, maxRetries: 0 });
  });

  afterAll(async () => {
    await mock.close();
  });

  beforeEach(() => mock.reset());

  it('answers messages.create with content, stop_reason and usage', async () => {
    const message = await client.messages.create({
      model: 'claude-mock-1',
      max_tokens: 256,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Name a prime number' }],
    });
    const reply = mockReply('Name a prime number');
    expect(message.id).toMatch(/^msg_/);
    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.model).toBe('claude-mock-1');
    expect(message.content).toEqual([{ type: 'text', text: reply }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.stop_sequence).toBeNull();
    expect(message.usage.input_tokens).toBe(Math.ceil(('You are terse.'.length + 'Name a prime number'.length) / 4));
    expect(message.usage.output_tokens).toBe(countTokens(reply));

    // @anthropic-ai/sdk 1.x sends the apiKey as a bearer token; the gateway sends x-api-key.
    const recorded = mock.requests[0];
    expect(recorded.headers['authorization'] ?? recorded.headers['x-api-key']).toMatch(/sk-ant-test/);
    expect(recorded.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(recorded).toMatchObject({ route: 'anthropic.messages', format: 'anthropic', model: 'claude-mock-1' });
  });

  it('counts each server tool of the request once in usage.server_tool_use, whole and streamed', async () => {
    const tools = [
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      { type: 'web_fetch_20250910', name: 'web_fetch' },
    ] as unknown as Anthropic.Messages.ToolUnion[];
    const body = { model: 'claude-mock-1', max_tokens: 64, tools, messages: [{ role: 'user' as const, content: 'Search the news' }] };
    const message = await client.messages.create(body);
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 1 });
    const final = await client.messages.stream(body).finalMessage();
    expect(final.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 1 });
    const plain = await client.messages.create({ ...body, tools: undefined });
    expect(plain.usage.server_tool_use).toBeUndefined();
  });

  it('reads text blocks and stops at max_tokens', async () => {
    const message = await client.messages.create({
      model: 'claude-mock-2',
      max_tokens: 3,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'block text' }] }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'mock reply t' }]);
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage.output_tokens).toBe(3);
  });

  it('streams with messages.stream and reports the final usage', async () => {
    const texts: string[] = [];
    const stream = client.messages.stream({
      model: 'claude-mock-1',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'stream this' }],
    });
    stream.on('text', (delta) => texts.push(delta));
    const final = await stream.finalMessage();
    const reply = mockReply('stream this');
    expect(texts.length).toBeGreaterThan(2);
    expect(texts.join('')).toBe(reply);
    expect(final.content).toEqual([{ type: 'text', text: reply }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.input_tokens).toBe(countTokens('stream this'));
    expect(final.usage.output_tokens).toBe(countTokens(reply));
  });

  it('sends the exact SSE event sequence of the Messages API', async () => {
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { ...ANTHROPIC_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'seq' }] }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());
    const types = events.map((e) => e.event);
    const deltas = types.filter((t) => t === 'content_block_delta').length;
    expect(deltas).toBeGreaterThan(2);
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      ...Array<string>(deltas).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    const start = JSON.parse(events[0].data);
    expect(start.message.usage.input_tokens).toBe(countTokens('seq'));
    const delta = JSON.parse(events[events.length - 2].data);
    // Cumulative counters of the whole message, as the API sends them (never increments).
    expect(delta).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: countTokens('seq'), cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: countTokens(mockReply('seq')) },
    });
    const first = JSON.parse(events[3].data);
    expect(first.delta).toEqual({ type: 'text_delta', text: 'mock ' });
  });

  it('counts tokens and lists models in Anthropic format', async () => {
    const count = await client.messages.countTokens({
      model: 'claude-mock-1',
      messages: [{ role: 'user', content: 'twelve chars' }],
    });
    expect(count.input_tokens).toBe(3);
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      expect(model.type).toBe('model');
      ids.push(model.id);
    }
    expect(ids).toContain('claude-mock-1');
  });

  it('answers 401 authentication_error without or with a rejected x-api-key', async () => {
    const missing = await postJson(
      `${mock.url}/v1/messages`,
      { model: 'claude-x', max_tokens: 5, messages: [] },
      { 'anthropic-version': '2023-06-01' },
    );
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'x-api-key header is required' },
    });

    const bad = new Anthropic({ apiKey: 'invalid-key', baseURL: mock.url, maxRetries: 0 });
    const err = await bad.messages
      .create({ model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((err as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
  });

  it('answers 400 invalid_request_error without anthropic-version or max_tokens', async () => {
    const noVersion = await postJson(
      `${mock.url}/v1/messages`,
      { model: 'claude-x', max_tokens: 5, messages: [] },
      { 'x-api-key': 'k' },
    );
    expect(noVersion.status).toBe(400);
    expect(noVersion.json).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });

    const noMax = await postJson(`${mock.url}/v1/messages`, { model: 'claude-x', messages: [] }, ANTHROPIC_HEADERS);
    expect(noMax.status).toBe(400);
    expect(noMax.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
  });
});
