import OpenAI from 'openai';
import { geminiSuite, Json, openaiFailure, postJson, PROVIDER_KEY } from './harness';

/**
 * Provider C edges through the official OpenAI SDK: answers that are not Gemini JSON, Gemini's own
 * finish reasons, what cannot be translated (refused, not dropped), data URLs, and Gemini 3's thought
 * signatures when a client rebuilt the assistant message without them.
 */
describe('provider C (gemini) edges through the OpenAI SDK', () => {
  const gemini = geminiSuite();

  const body = { model: 'gemini-2.0-flash', messages: [{ role: 'user' as const, content: 'hi' }] };
  const raw = (extra: Json) => postJson(`${gemini.gw.url}/v1/gemini/chat/completions`, { ...body, ...extra }, { 'X-SVC-API-Key': gemini.gw.key, 'X-Provider-Key': PROVIDER_KEY });

  it('answers a non-JSON error page in the format-A error shape, streamed request or not', async () => {
    gemini.gw.mock.setBehavior({ fail: { status: 503, body: 'upstream connect error or disconnect/reset before headers', times: 2 } });
    const plain = await openaiFailure(() => gemini.client.chat.completions.create(body));
    expect(plain.status).toBe(503);
    expect(plain.error).toEqual({ message: 'upstream connect error or disconnect/reset before headers', type: 'api_error', param: null, code: 'upstream_503' });
    const streamed = await openaiFailure(async () => {
      for await (const chunk of await gemini.client.chat.completions.create({ ...body, stream: true })) void chunk;
    });
    expect(streamed.status).toBe(503);
    expect(streamed.error).toMatchObject({ type: 'api_error', code: 'upstream_503' });
  });

  it('never relays a 200 that is not a generate-content answer as a chat completion', async () => {
    gemini.gw.mock.setBehavior({ fail: { status: 200, body: '<html>captive portal</html>' } });
    const error = await openaiFailure(() => gemini.client.chat.completions.create(body));
    expect(error.status).toBe(502);
    expect(error.error).toMatchObject({ type: 'api_error', code: 'upstream_invalid_response' });
  });

  it("keeps Gemini's own finish reason beside format A's (a malformed function call is not a plain stop)", async () => {
    const malformed = { ...body, messages: [{ role: 'user' as const, content: 'mock:finish=MALFORMED_FUNCTION_CALL' }] };
    const whole = await gemini.client.chat.completions.create(malformed);
    expect(whole.choices[0]).toMatchObject({ finish_reason: 'stop', native_finish_reason: 'MALFORMED_FUNCTION_CALL' });
    const final = await gemini.client.chat.completions.stream(malformed).finalChatCompletion();
    expect(final.choices[0]).toMatchObject({ finish_reason: 'stop', native_finish_reason: 'MALFORMED_FUNCTION_CALL' });
    const blocked = await gemini.client.chat.completions.create({ ...body, messages: [{ role: 'user', content: 'mock:block=BLOCKLIST' }] });
    expect(blocked.choices[0]).toMatchObject({ finish_reason: 'content_filter', native_finish_reason: 'BLOCKLIST' });
    const stopped = await gemini.client.chat.completions.stream({ ...body, messages: [{ role: 'user', content: 'x mock:finish=RECITATION' }] }).finalChatCompletion();
    expect(stopped.choices[0]).toMatchObject({ finish_reason: 'content_filter', native_finish_reason: 'RECITATION' });
  });

  it('refuses the deprecated functions parameters and non-function tools instead of dropping them', async () => {
    const functions = await raw({ functions: [{ name: 'f', parameters: { type: 'object' } }], function_call: 'auto' });
    expect(functions.status).toBe(400);
    expect(functions.body.error).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_parameter', param: 'functions' });
    const custom = await openaiFailure(() => gemini.client.chat.completions.create({ ...body, tools: [{ type: 'custom', custom: { name: 'grammar' } }] }));
    expect(custom.status).toBe(400);
    expect(custom.error).toMatchObject({ param: 'tools', message: expect.stringContaining("type 'custom'") });
    expect(gemini.gw.mock.requests).toHaveLength(0);
  });

  it('narrows the declarations to allowed_tools', async () => {
    const tool = (name: string): OpenAI.ChatCompletionFunctionTool => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });
    await gemini.client.chat.completions.create({
      ...body,
      tools: [tool('a'), tool('b'), tool('c')],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'b' } }] } },
    });
    expect(gemini.upstreamBody().tools).toEqual([{ functionDeclarations: [{ name: 'b', parametersJsonSchema: { type: 'object', properties: {} } }] }]);
    expect(gemini.upstreamBody().toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
  });

  it('sends a percent-encoded data URL as base64 inline data', async () => {
    await gemini.client.chat.completions.create({ ...body, messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: 'data:text/plain,hello%20world' } }] }] });
    expect(gemini.upstreamBody().contents[0].parts).toEqual([{ inlineData: { mimeType: 'text/plain', data: Buffer.from('hello world').toString('base64') } }]);
  });

  it("signs Gemini 3 function calls a client sent back without Gemini's thought signature", async () => {
    const model = 'gemini-3-flash-preview';
    const tools: OpenAI.ChatCompletionFunctionTool[] = [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }];
    const first = await gemini.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'get_time' }], tools });
    const call = first.choices[0].message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    // A framework that rebuilds the assistant message keeps id, type and function, not extra_content.
    const rebuilt: OpenAI.ChatCompletionAssistantMessageParam = { role: 'assistant', tool_calls: [{ id: call.id, type: 'function', function: call.function }] };
    const second = await gemini.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'get_time' }, rebuilt, { role: 'tool', tool_call_id: call.id, content: '12:00' }], tools });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(gemini.upstreamBody().contents[1].parts[0]).toMatchObject({ functionCall: { name: 'get_time' }, thoughtSignature: 'skip_thought_signature_validator' });
    // A signature the client kept is sent as it came.
    await gemini.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'get_time' }, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '12:00' }], tools });
    expect(gemini.upstreamBody().contents[1].parts[0].thoughtSignature).toBe((call as unknown as Json).extra_content.google.thought_signature);
  });
});
