import OpenAI from 'openai';
import { GEMINI_THOUGHT_TOKENS, mockReply } from '@svc/mock-provider';
import { geminiSuite, Json, openaiFailure } from './harness';

/**
 * Provider C through the official OpenAI SDK: `reasoning_effort` as Gemini's thinking config (what
 * the mock was sent, and the thinking billed back), `logprobs` / `top_logprobs` both ways, whole and
 * streamed, and Gemini's function-call ids echoed on the function responses.
 */
describe('provider C (gemini) reasoning_effort, logprobs and call ids through the OpenAI SDK', () => {
  const gemini = geminiSuite();

  const ask = (model: string, reasoning_effort: OpenAI.ReasoningEffort) =>
    gemini.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'think' }], reasoning_effort });

  it('turns thinking off for reasoning_effort none and budgets it for low (Gemini 2.5)', async () => {
    const off = await ask('gemini-2.5-flash', 'none');
    expect(gemini.upstreamBody().generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
    expect(off.usage?.completion_tokens_details?.reasoning_tokens ?? 0).toBe(0);
    const low = await ask('gemini-2.5-flash', 'low');
    expect(gemini.upstreamBody().generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 1024 } });
    expect(low.usage?.completion_tokens_details?.reasoning_tokens).toBe(GEMINI_THOUGHT_TOKENS);
    expect(low.usage?.completion_tokens).toBe((off.usage?.completion_tokens ?? 0) + GEMINI_THOUGHT_TOKENS);
  });

  it('sends Gemini 3 the thinking level of the effort, and refuses none (Gemini 3 cannot stop thinking)', async () => {
    await ask('gemini-3-flash-preview', 'minimal');
    expect(gemini.upstreamBody().generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'MINIMAL' } });
    await ask('gemini-3-flash-preview', 'high');
    expect(gemini.upstreamBody().generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'HIGH' } });
    gemini.gw.mock.reset();
    const none = await openaiFailure(() => ask('gemini-3-pro-preview', 'none'));
    expect(none.status).toBe(400);
    expect(none.error).toMatchObject({ type: 'invalid_request_error', param: 'reasoning_effort', message: expect.stringContaining('send low') });
    expect(gemini.gw.mock.requests).toHaveLength(0);
  });

  it('refuses none on Gemini 2.5 Pro and an unknown effort with 400 naming reasoning_effort, sending nothing', async () => {
    const pro = await openaiFailure(() => ask('gemini-2.5-pro', 'none'));
    expect(pro.status).toBe(400);
    expect(pro.error).toMatchObject({ type: 'invalid_request_error', param: 'reasoning_effort', message: expect.stringContaining('cannot turn thinking off') });
    const unknown = await openaiFailure(() => ask('gemini-2.5-flash', 'xhigh' as OpenAI.ReasoningEffort));
    expect(unknown.status).toBe(400);
    expect(unknown.error).toMatchObject({ type: 'invalid_request_error', param: 'reasoning_effort' });
    expect(gemini.gw.mock.requests).toHaveLength(0);
  });

  it('answers logprobs with top_logprobs, whole and streamed', async () => {
    const reply = mockReply('hi');
    const words = reply.match(/\S+\s*/g) as string[];
    const whole = await gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }], logprobs: true, top_logprobs: 2 });
    expect(gemini.upstreamBody().generationConfig).toEqual({ responseLogprobs: true, logprobs: 2 });
    const content = whole.choices[0].logprobs?.content ?? [];
    expect(content.map((t) => [t.token, t.logprob, t.top_logprobs.length])).toEqual(words.map((w, k) => [w, -0.25 * (k + 1), 2]));
    expect(content.map((t) => t.token).join('')).toBe(whole.choices[0].message.content);
    expect(content[0].bytes).toEqual([...Buffer.from(words[0], 'utf8')]);
    expect(content[0].top_logprobs[1]).toEqual({ token: 'alt1', logprob: -1.25, bytes: [...Buffer.from('alt1')] });

    const stream = await gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }], logprobs: true, stream: true });
    expect(gemini.upstreamBody().generationConfig).toEqual({ responseLogprobs: true });
    const streamed: OpenAI.ChatCompletionTokenLogprob[] = [];
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      streamed.push(...(chunk.choices[0]?.logprobs?.content ?? []));
    }
    expect(text).toBe(reply);
    expect(streamed.map((t) => [t.token, t.top_logprobs])).toEqual(words.map((w) => [w, []]));

    const plain = await gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] });
    expect(plain.choices[0].logprobs).toBeNull();
  });

  it("echoes Gemini's function-call id on the call and its function response", async () => {
    const tools: OpenAI.ChatCompletionFunctionTool[] = [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'get_time mock:call-ids' }];
    const first = await gemini.client.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools });
    const call = first.choices[0].message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.id).toMatch(/^mock-fc-\d+-0$/);
    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"time":"12:00"}' });
    const second = await gemini.client.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools });
    expect(second.choices[0].message.content).toBe(mockReply('get_time={"time":"12:00"}'));
    const contents = gemini.upstreamBody().contents as Json[];
    expect(contents[1].parts[0].functionCall).toEqual({ name: 'get_time', args: {}, id: call.id });
    expect(contents[2].parts).toEqual([{ functionResponse: { name: 'get_time', response: { time: '12:00' }, id: call.id } }]);
  });
});
