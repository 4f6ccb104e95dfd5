import OpenAI from 'openai';
import { mockReply } from '@svc/mock-provider';
import { geminiSuite, Json } from './harness';

/**
 * Provider C through the official OpenAI SDK: tool calls both ways (assistant `tool_calls` and `tool`
 * results to functionCall / functionResponse turns), parallel calls, the SDK's stream helper and
 * tool runner over translated streams, and tool_choice to toolConfig. The mock answers as Gemini does
 * and refuses what the real API refuses (response turns that do not match the call turn).
 */
describe('provider C (gemini) tool calls through the OpenAI SDK', () => {
  const gemini = geminiSuite();

  const weatherTool: OpenAI.ChatCompletionFunctionTool = {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } },
  };
  const timeTool: OpenAI.ChatCompletionFunctionTool = {
    type: 'function',
    function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
  };

  it('returns parallel function calls as tool_calls and sends the results back as one function-response turn', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Call get_weather and get_time please' }];
    const first = await gemini.client.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools: [weatherTool, timeTool] });
    const choice = first.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const calls = (choice.message.tool_calls ?? []) as OpenAI.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((c) => [c.type, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['function', 'get_weather', { city: 'mock city' }],
      ['function', 'get_time', { zone: 'mock zone' }],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(gemini.upstreamBody().tools).toEqual([{ functionDeclarations: [
      { name: 'get_weather', description: 'Weather of a city', parametersJsonSchema: weatherTool.function.parameters },
      { name: 'get_time', parametersJsonSchema: timeTool.function.parameters },
    ] }]);

    // The SDK's own message (thought signature in extra_content included) goes back with both results.
    messages.push(choice.message, ...calls.map((c, i) => ({ role: 'tool' as const, tool_call_id: c.id, content: JSON.stringify({ n: i }) })));
    const second = await gemini.client.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools: [weatherTool, timeTool] });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.content).toBe(mockReply('get_weather={"n":0} get_time={"n":1}'));
    const contents = gemini.upstreamBody().contents as Json[];
    expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1].parts.map((p: Json) => p.functionCall.name)).toEqual(['get_weather', 'get_time']);
    expect(contents[1].parts[0].thoughtSignature).toEqual(expect.any(String));
    expect(contents[2].parts).toEqual([
      { functionResponse: { name: 'get_weather', response: { n: 0 } } },
      { functionResponse: { name: 'get_time', response: { n: 1 } } },
    ]);
  });

  it('streams tool calls the SDK stream helper assembles into complete, parseable calls', async () => {
    const stream = gemini.client.chat.completions.stream({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'get_time, then get_weather' }], tools: [weatherTool, timeTool], stream_options: { include_usage: true } });
    const done: { name: string; args: unknown }[] = [];
    stream.on('tool_calls.function.arguments.done', (event) => done.push({ name: event.name, args: event.parsed_arguments ?? JSON.parse(event.arguments) }));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    const calls = (final.choices[0].message.tool_calls ?? []) as OpenAI.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['get_time', { zone: 'mock zone' }],
      ['get_weather', { city: 'mock city' }],
    ]);
    expect(calls.every((c) => c.id.startsWith('call_') && c.type === 'function')).toBe(true);
    expect(done).toEqual([
      { name: 'get_time', args: { zone: 'mock zone' } },
      { name: 'get_weather', args: { city: 'mock city' } },
    ]);
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('runs tools to the end with the streaming tool runner', async () => {
    const seen: unknown[] = [];
    const runner = gemini.client.chat.completions.runTools({
      model: 'gemini-2.5-flash',
      stream: true,
      messages: [{ role: 'user', content: 'What does get_weather say?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            parse: JSON.parse,
            function: (args: { city: string }) => {
              seen.push(args);
              return { temp: 21 };
            },
          },
        },
      ],
    });
    const content = await runner.finalContent();
    expect(seen).toEqual([{ city: 'mock city' }]);
    expect(content).toBe(mockReply('get_weather={"temp":21}'));
    const turns = (gemini.upstreamBody().contents as Json[]).map((c) => c.role);
    expect(turns).toEqual(['user', 'model', 'user']);
  });

  it('maps tool_choice to functionCallingConfig', async () => {
    const ask = (tool_choice: OpenAI.ChatCompletionToolChoiceOption) =>
      gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hello get_weather' }], tools: [weatherTool, timeTool], tool_choice });
    const none = await ask('none');
    expect(gemini.upstreamBody().toolConfig).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(none.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: mockReply('hello get_weather') } });
    await ask('auto');
    expect(gemini.upstreamBody().toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    await ask('required');
    expect(gemini.upstreamBody().toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    const named = await ask({ type: 'function', function: { name: 'get_time' } });
    expect(gemini.upstreamBody().toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } });
    const namedCalls = named.choices[0].message.tool_calls as OpenAI.ChatCompletionMessageFunctionToolCall[];
    expect(namedCalls.map((c) => c.function.name)).toEqual(['get_time']);
  });
});
