import Anthropic from '@anthropic-ai/sdk';
import { countTokens, MIN_CACHEABLE_TOKENS, mockReply, startMockProvider, type MockProvider } from './index';
import { ANTHROPIC_HEADERS, parseSse } from './spec-helpers';

/** Thinking, tool use, prompt caching and in-stream errors in the Messages API's shapes, read by the official SDK. */
describe('mock provider: format B content blocks, caching and stream errors', () => {
  let mock: MockProvider;
  let client: Anthropic;
  const weather: Anthropic.Tool = {
    name: 'get_weather',
    description: 'Weather of a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  };

  beforeAll(async () => {
    mock = await startMockProvider();
    client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: mock.url, maxRetries: 0 });
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  it('answers with a signed thinking block before the text, counted in output_tokens', async () => {
    const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
    const message = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 2048, thinking, messages: [{ role: 'user', content: 'why' }] });
    const thought = 'mock thinking about: why';
    expect(message.content).toEqual([
      { type: 'thinking', thinking: thought, signature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) },
      { type: 'text', text: mockReply('why') },
    ]);
    expect(message.usage.output_tokens).toBe(countTokens(thought) + countTokens(mockReply('why')));

    const streamed = await client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 2048, thinking, messages: [{ role: 'user', content: 'why' }] }).finalMessage();
    expect(streamed.content).toEqual(message.content);
    expect(streamed.usage.output_tokens).toBe(message.usage.output_tokens);
  });

  it('calls a tool: tool_choice forces it, auto calls one the user names; input_json_delta assembles the input', async () => {
    const forced = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools: [weather], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'hi' }] });
    expect(forced.stop_reason).toBe('tool_use');
    expect(forced.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'mock', days: 1 } }]);
    expect(forced.usage.output_tokens).toBe(countTokens('{"city":"mock","days":1}'));

    const stream = client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, tools: [weather], messages: [{ role: 'user', content: 'use get_weather for Paris' }] });
    const json: string[] = [];
    stream.on('inputJson', (partial) => json.push(partial));
    const streamed = await stream.finalMessage();
    expect(streamed.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'mock', days: 1 } }]);
    expect(json.length).toBeGreaterThan(1);
    expect(streamed.stop_reason).toBe('tool_use');

    const plain = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools: [weather], messages: [{ role: 'user', content: 'no tool here' }] });
    expect(plain.content).toEqual([{ type: 'text', text: mockReply('no tool here') }]);
  });

  it('refuses thinking with a forced tool_choice, as the API does', async () => {
    const err = await client.messages
      .create({ model: 'claude-sonnet-4-6', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [weather], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  });

  it('writes a marked prefix to the cache, reads it back, and splits writes by lifetime', async () => {
    const long = 'cache me please '.repeat(MIN_CACHEABLE_TOKENS / 2);
    const prefixTokens = countTokens(long);
    const request = (ttl?: '1h') => ({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      system: [{ type: 'text' as const, text: long, cache_control: { type: 'ephemeral' as const, ...(ttl ? { ttl } : {}) } }],
      messages: [{ role: 'user' as const, content: 'question' }],
    });
    const first = await client.messages.create(request('1h'));
    expect(first.usage).toMatchObject({
      input_tokens: countTokens(long + 'question') - prefixTokens,
      cache_creation_input_tokens: prefixTokens,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: prefixTokens },
    });
    const second = await client.messages.stream(request('1h')).finalMessage();
    expect(second.usage).toMatchObject({ input_tokens: first.usage.input_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: prefixTokens });

    // Below the minimum nothing is cached.
    const short = await client.messages.create({ ...request(), system: [{ type: 'text', text: 'short', cache_control: { type: 'ephemeral' } }] });
    expect(short.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('streams the cumulative counters in message_delta and ends a stream with an in-stream error event', async () => {
    mock.setBehavior({ streamError: { afterChunks: 2, type: 'overloaded_error', times: 2 } });
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { ...ANTHROPIC_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'err' }] }),
    });
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'error']);
    expect(JSON.parse(events[2].data)).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });

    const err = await client.messages.stream({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'err' }] }).finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err).toMatchObject({ type: 'overloaded_error', status: undefined });
  });
});
