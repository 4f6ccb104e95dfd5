import OpenAI from 'openai';
import { z } from 'zod';
import { zodResponseFormat } from 'openai/helpers/zod';
import { mockReply, startMockProvider, type MockProvider } from './index';

describe('mock provider: format A tool calls, n choices and structured output through the official SDK', () => {
  let mock: MockProvider;
  let client: OpenAI;
  const weather: OpenAI.ChatCompletionFunctionTool = {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'] } },
  };
  const time: OpenAI.ChatCompletionFunctionTool = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } } } } };

  beforeAll(async () => {
    mock = await startMockProvider();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `${mock.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  it('calls the tools the user names (parallel, in order of mention), whole and streamed alike', async () => {
    const params = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'get_time then get_weather' }], tools: [weather, time] };
    const whole = await client.chat.completions.create(params);
    const streamed = await client.chat.completions.stream(params).finalChatCompletion();
    for (const completion of [whole, streamed]) {
      expect(completion.choices[0].finish_reason).toBe('tool_calls');
      const calls = completion.choices[0].message.tool_calls as OpenAI.ChatCompletionMessageFunctionToolCall[];
      expect(calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
        ['get_time', { zone: 'UTC' }],
        ['get_weather', { city: 'mock city', days: 1 }],
      ]);
    }
    expect(whole.usage?.completion_tokens).toBeGreaterThan(0);
    const forced = await client.chat.completions.create({ ...params, messages: [{ role: 'user', content: 'hi' }], tool_choice: { type: 'function', function: { name: 'get_weather' } } });
    expect(forced.choices[0].message.tool_calls?.map((call) => call.id)).toEqual([expect.stringMatching(/^call_mock/)]);
    const none = await client.chat.completions.create({ ...params, tool_choice: 'none' });
    expect(none.choices[0].message).toMatchObject({ content: mockReply('get_time then get_weather') });
  });

  it('answers n choices (choice i > 0 with " (i+1)"), whole and streamed, usage summed', async () => {
    const params = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'three' }], n: 3 };
    const whole = await client.chat.completions.create(params);
    const expected = [mockReply('three'), `${mockReply('three')} (2)`, `${mockReply('three')} (3)`];
    expect(whole.choices.map((choice) => choice.message.content)).toEqual(expected);
    expect(whole.usage?.completion_tokens).toBe(expected.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0));
    const streamed = await client.chat.completions.stream(params).finalChatCompletion();
    expect(streamed.choices.map((choice) => choice.message.content)).toEqual(expected);
  });

  it('answers a sample of response_format json_schema, which chat.completions.parse() reads', async () => {
    const format = zodResponseFormat(z.object({ city: z.string(), rank: z.number(), tags: z.array(z.string()) }), 'city');
    const parsed = await client.chat.completions.parse({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a city' }], response_format: format });
    expect(parsed.choices[0].message.parsed).toEqual({ city: 'mock city', rank: 1, tags: ['mock tags'] });
    const loose = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'json' }], response_format: { type: 'json_object' } });
    expect(JSON.parse(loose.choices[0].message.content ?? '')).toEqual({ reply: mockReply('json') });
  });
});
