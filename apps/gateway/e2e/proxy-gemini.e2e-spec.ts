import OpenAI from 'openai';
import { costOf } from '@svc/governance';
import { GEMINI_IMPLICIT_CACHE_MIN_TOKENS, GEMINI_THOUGHT_TOKENS, mockReply } from '@svc/mock-provider';
import { geminiSuite, usageOf } from './harness';

/**
 * Provider C through the official OpenAI SDK: what the translation maps besides tools (candidates,
 * JSON mode, images, system messages, stops, limits), what Gemini bills (thoughts, cached prompt
 * tokens) and what Gemini refuses (blocked prompts, safety stops), streamed and not.
 */
describe('provider C (gemini) translation through the OpenAI SDK', () => {
  const gemini = geminiSuite();

  const collect = async (stream: AsyncIterable<OpenAI.ChatCompletionChunk>) => {
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return chunks;
  };

  it('maps system and developer messages, stops, limits and n, and answers one choice per candidate', async () => {
    const completion = await gemini.client.chat.completions.create({
      model: 'gemini-2.0-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use English.' }] },
        { role: 'user', content: 'Two answers' },
      ],
      stop: 'END',
      max_completion_tokens: 50,
      n: 2,
    });
    expect(gemini.upstreamBody().systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Use English.' }] });
    expect(gemini.upstreamBody().generationConfig).toEqual({ maxOutputTokens: 50, candidateCount: 2, stopSequences: ['END'] });
    expect(completion.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, mockReply('Two answers'), 'stop'],
      [1, `${mockReply('Two answers')} (2)`, 'stop'],
    ]);

    const stream = await gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Two streamed' }], stop: ['A', 'B'], n: 2, stream: true });
    const chunks = await collect(stream);
    expect(gemini.upstreamBody().generationConfig).toEqual({ candidateCount: 2, stopSequences: ['A', 'B'] });
    const text = [0, 1].map((i) => chunks.flatMap((c) => c.choices.filter((x) => x.index === i).map((x) => x.delta.content ?? '')).join(''));
    expect(text).toEqual([mockReply('Two streamed'), `${mockReply('Two streamed')} (2)`]);
    const finishes = chunks.flatMap((c) => c.choices.filter((x) => x.finish_reason).map((x) => [x.index, x.finish_reason]));
    expect(finishes).toEqual([[0, 'stop'], [1, 'stop']]);
  });

  it('asks for JSON with response_format json_schema and json_object', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, rank: { type: 'integer' } }, required: ['city', 'rank'], additionalProperties: false };
    const structured = await gemini.client.chat.completions.create({
      model: 'gemini-2.0-flash',
      messages: [{ role: 'user', content: 'Best city?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
    });
    expect(gemini.upstreamBody().generationConfig).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
    expect(JSON.parse(structured.choices[0].message.content ?? '')).toEqual({ city: 'mock city', rank: 1 });
    const loose = await gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'JSON please' }], response_format: { type: 'json_object' } });
    expect(gemini.upstreamBody().generationConfig).toEqual({ responseMimeType: 'application/json' });
    expect(JSON.parse(loose.choices[0].message.content ?? '')).toEqual({ reply: mockReply('JSON please') });
  });

  it('sends image data URLs as inline data', async () => {
    const png = Buffer.from('not really a png').toString('base64');
    await gemini.client.chat.completions.create({
      model: 'gemini-2.0-flash',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}`, detail: 'low' } }] }],
    });
    expect(gemini.upstreamBody().contents).toEqual([{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: png } }] }]);
  });

  it('answers a blocked prompt with an empty content_filter choice, streamed too, never a 5xx', async () => {
    const blocked = await gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'mock:block=PROHIBITED_CONTENT' }] });
    expect(blocked.choices).toEqual([{ index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', native_finish_reason: 'PROHIBITED_CONTENT', logprobs: null }]);
    expect(blocked.usage?.prompt_tokens).toBeGreaterThan(0);
    const stream = gemini.client.chat.completions.stream({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'mock:block=SAFETY' }] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]).toMatchObject({ finish_reason: 'content_filter', message: { role: 'assistant', content: null } });
  });

  it('ends a candidate Gemini stopped for safety with content_filter and keeps what came before', async () => {
    const stopped = await gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'say mock:finish=SAFETY' }] });
    expect(stopped.choices[0].finish_reason).toBe('content_filter');
    const chunks = await collect(await gemini.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'say mock:finish=RECITATION' }], stream: true }));
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(mockReply('say mock:finish=RECITATION').startsWith(text) && text.length > 0).toBe(true);
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('content_filter');
  });

  it('counts thinking tokens as completion tokens and bills them as output, streamed or not', async () => {
    const prompt = 'Think about it';
    const { data, response } = await gemini.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: prompt }] }).withResponse();
    const answerTokens = Math.ceil(mockReply(prompt).length / 4);
    expect(data.usage).toMatchObject({ completion_tokens: answerTokens + GEMINI_THOUGHT_TOKENS, completion_tokens_details: { reasoning_tokens: GEMINI_THOUGHT_TOKENS } });
    expect(data.usage?.total_tokens).toBe((data.usage?.prompt_tokens ?? 0) + answerTokens + GEMINI_THOUGHT_TOKENS);
    const record = await usageOf(gemini.gw, response.headers.get('x-svc-request-id'));
    expect(record?.output_tokens).toBe(answerTokens + GEMINI_THOUGHT_TOKENS);
    expect(record?.cost).toBeCloseTo(costOf('gemini-2.5-flash', { input_tokens: data.usage?.prompt_tokens, output_tokens: answerTokens + GEMINI_THOUGHT_TOKENS }), 12);

    const { data: stream, response: streamed } = await gemini.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: prompt }], stream: true, stream_options: { include_usage: true } }).withResponse();
    const chunks = await collect(stream);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(mockReply(prompt));
    expect(chunks.at(-1)?.usage).toMatchObject({ completion_tokens: answerTokens + GEMINI_THOUGHT_TOKENS, completion_tokens_details: { reasoning_tokens: GEMINI_THOUGHT_TOKENS } });
    const streamRecord = await usageOf(gemini.gw, streamed.headers.get('x-svc-request-id'));
    expect(streamRecord?.output_tokens).toBe(answerTokens + GEMINI_THOUGHT_TOKENS);
  });

  it('reports implicitly cached prompt tokens and prices them at the cached rate', async () => {
    const system = 'y'.repeat(GEMINI_IMPLICIT_CACHE_MIN_TOKENS * 4);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: system }, { role: 'user', content: 'first' }];
    await gemini.client.chat.completions.create({ model: 'gemini-2.5-flash', messages });
    const { data, response } = await gemini.client.chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [...messages, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'second' }] })
      .withResponse();
    const cached = Math.ceil((system.length + 'first'.length) / 4);
    expect(data.usage?.prompt_tokens_details?.cached_tokens).toBe(cached);
    const record = await usageOf(gemini.gw, response.headers.get('x-svc-request-id'));
    const prompt = data.usage?.prompt_tokens ?? 0;
    expect(record?.input_tokens).toBe(prompt);
    expect(record?.cost).toBeCloseTo(costOf('gemini-2.5-flash', { input_tokens: prompt - cached, cached_input_tokens: cached, output_tokens: data.usage?.completion_tokens }), 12);
  });
});
