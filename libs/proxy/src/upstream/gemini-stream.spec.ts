import { createParser } from 'eventsource-parser';
import { GEMINI_STREAM_FUNCTION_CALL, GEMINI_STREAM_LOGPROBS, GEMINI_STREAM_TEXT, geminiSse } from './fixtures/gemini.fixtures';
import { GeminiSseTranslator, GeminiStreamTranslator, SSE_DONE } from './gemini-stream';
import { SseUsageTracker } from './usage';

const fixed = { model: 'gemini-2.0-flash', created: 1_750_000_000, newId: (prefix: string) => `${prefix}fixed` };

/** Splits a string into byte chunks of the given sizes (cycling), cutting through multi-byte characters. */
function chunks(text: string, sizes: number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    out.push(bytes.slice(at, at + size));
    at += size;
  }
  return out;
}

/** The data payloads of an SSE text, as a client would parse them. */
function events(sse: string): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (e) => data.push(e.data) });
  parser.feed(sse);
  return data;
}

/** Gemini's in-stream error object (its `code` is the HTTP status, `status` the gRPC name). */
const geminiErrorEvent = (code: unknown, status: string) => ({ error: { code, message: `Gemini says ${status}`, status } });

describe('GeminiStreamTranslator', () => {
  it('emits a role chunk, content deltas, a finish chunk and the usage chunk', () => {
    const translator = new GeminiStreamTranslator({ ...fixed, includeUsage: true });
    const out = [...GEMINI_STREAM_TEXT.flatMap((e) => translator.push(e)), ...translator.end()];
    const base = { id: 'chatcmpl-c3RyZWFtLXJlc3BvbnNl', object: 'chat.completion.chunk', created: 1_750_000_000, model: 'gemini-2.0-flash' };
    const choice = (delta: object, finish_reason: string | null, native?: string) => ({ ...base, choices: [{ index: 0, delta, finish_reason, ...(native ? { native_finish_reason: native } : {}), logprobs: null }], usage: null });
    expect(out).toEqual([
      choice({ role: 'assistant', content: '' }, null),
      choice({ content: 'The' }, null),
      choice({ content: ' capital of France is Paris' }, null),
      choice({ content: '. Bon appétit 🇫🇷' }, null),
      choice({}, 'stop', 'STOP'),
      { ...base, choices: [], usage: { prompt_tokens: 11, completion_tokens: 12, total_tokens: 23 } },
    ]);
    expect(translator.completed).toBe(true);
  });

  it('streams thought summaries between <thought> tags, closed by the answer, a function call or the finish', () => {
    const thought = (text: string) => ({ text, thought: true });
    const event = (parts: object[], finishReason?: string) => ({ candidates: [{ content: { parts, role: 'model' }, index: 0, ...(finishReason ? { finishReason } : {}) }], responseId: 'r' });
    const contents = (events: object[]) => {
      const translator = new GeminiStreamTranslator(fixed);
      return events.flatMap((e) => translator.push(e)).map((c) => ('choices' in c ? c.choices[0].delta : c));
    };
    expect(contents([event([thought('Weighing')]), event([thought(' options')]), event([{ text: '42' }], 'STOP')])).toEqual([
      { role: 'assistant', content: '' },
      { content: '<thought>Weighing' },
      { content: ' options' },
      { content: '</thought>42' },
      {},
    ]);
    const call = { functionCall: { name: 'get_time', args: {} } };
    expect(contents([event([thought('Calling'), call], 'STOP')])).toEqual([
      { role: 'assistant', content: '' },
      { content: '<thought>Calling</thought>' },
      { tool_calls: [{ index: 0, id: 'call_fixed', type: 'function', function: { name: 'get_time', arguments: '{}' } }] },
      {},
    ]);
    expect(contents([event([thought('Only thinking')], 'MAX_TOKENS')])).toEqual([
      { role: 'assistant', content: '' },
      { content: '<thought>Only thinking' },
      { content: '</thought>' },
      {},
    ]);
  });

  it('omits the usage chunk and the usage field when the client did not ask', () => {
    const translator = new GeminiStreamTranslator(fixed);
    const out = [...GEMINI_STREAM_TEXT.flatMap((e) => translator.push(e)), ...translator.end()];
    expect(out).toHaveLength(5);
    for (const chunk of out) expect(chunk).not.toHaveProperty('usage');
    expect(translator.usage).toEqual({ prompt_tokens: 11, completion_tokens: 12, total_tokens: 23 });
  });

  it('streams function calls as tool_calls deltas', () => {
    const translator = new GeminiStreamTranslator({ ...fixed, model: 'gemini-2.5-flash' });
    const out = GEMINI_STREAM_FUNCTION_CALL.flatMap((e) => translator.push(e));
    expect(out.map((c) => ('choices' in c ? c.choices[0] : c))).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null },
      {
        index: 0,
        delta: {
          tool_calls: [{ index: 0, id: 'call_fixed', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
        },
        finish_reason: null,
        logprobs: null,
      },
      { index: 0, delta: {}, finish_reason: 'tool_calls', native_finish_reason: 'STOP', logprobs: null },
    ]);
  });

  it("puts each chunk's logprobsResult on that chunk's content delta", () => {
    const translator = new GeminiStreamTranslator(fixed);
    const out = GEMINI_STREAM_LOGPROBS.flatMap((e) => translator.push(e));
    const bytes = (token: string) => [...Buffer.from(token, 'utf8')];
    const entry = (token: string, logprob: number) => ({ token, logprob, bytes: bytes(token), top_logprobs: [{ token, logprob, bytes: bytes(token) }] });
    expect(out.map((c) => ('choices' in c ? [c.choices[0].delta, c.choices[0].logprobs] : c))).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'Oui' }, { content: [entry('Oui', -0.1)], refusal: null }],
      [{ content: ', café' }, { content: [entry(', café', -0.3)], refusal: null }],
      [{}, null],
    ]);
  });

  it('measures the answer text it translated (text parts, tool-call arguments), for a stream that never gets its usage', () => {
    const text = new GeminiStreamTranslator(fixed);
    GEMINI_STREAM_TEXT.slice(0, 2).forEach((e) => text.push(e));
    expect(text.textChars).toBe('The capital of France is Paris'.length);
    expect(text.completed).toBe(false);
    const calls = new GeminiStreamTranslator(fixed);
    GEMINI_STREAM_FUNCTION_CALL.forEach((e) => calls.push(e));
    expect(calls.textChars).toBe('{"location":"Paris"}'.length);
  });

  it('closes an open <thought> before the error event of an in-stream error', () => {
    const translator = new GeminiStreamTranslator(fixed);
    translator.push({ candidates: [{ content: { parts: [{ text: 'Weighing', thought: true }], role: 'model' }, index: 0 }], responseId: 'r' });
    const out = translator.push({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } });
    expect(out.map((c) => ('choices' in c ? c.choices[0].delta : c))).toEqual([
      { content: '</thought>' },
      { error: { message: 'The model is overloaded.', type: 'api_error', param: null, code: 'service_unavailable' } },
    ]);
  });

  it('turns an in-stream error object into an error event', () => {
    const translator = new GeminiStreamTranslator(fixed);
    translator.push(GEMINI_STREAM_TEXT[0]);
    const out = translator.push({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } });
    expect(out).toEqual([{ error: { message: 'The model is overloaded.', type: 'api_error', param: null, code: 'service_unavailable' } }]);
    expect(translator.completed).toBe(false);
    expect(translator.errored).toBe(true);
  });

  it.each([
    [503, 'the number'],
    ['503', 'three digits in a string'],
  ])('reads the status of an in-stream error without a gRPC name from its code as %s (%s)', (code: number | string, _form: string) => {
    const translator = new GeminiStreamTranslator(fixed);
    const out = translator.push({ error: { code, message: 'The model is overloaded.' } });
    expect(out).toEqual([{ error: { message: 'The model is overloaded.', type: 'api_error', param: null, code: 'upstream_503' } }]);
    expect(translator.serverError).toBe(true);
  });

  it.each([
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
    [504, 'DEADLINE_EXCEEDED'],
    ['503', 'UNAVAILABLE'],
  ])("marks an in-stream error %s %s as Gemini's own failure (its breaker counts it)", (code, status) => {
    const translator = new GeminiStreamTranslator(fixed);
    translator.push(GEMINI_STREAM_TEXT[0]);
    expect(translator.serverError).toBe(false);
    translator.push(geminiErrorEvent(code, status));
    // A client-side error after it does not undo it.
    translator.push(geminiErrorEvent(400, 'INVALID_ARGUMENT'));
    expect([translator.errored, translator.serverError]).toEqual([true, true]);
  });

  it.each([
    [400, 'INVALID_ARGUMENT'],
    [403, 'PERMISSION_DENIED'],
    [429, 'RESOURCE_EXHAUSTED'],
    ['429', 'RESOURCE_EXHAUSTED'],
  ])("does not mark an in-stream error %s %s, the request's fault, as Gemini's failure", (code, status) => {
    const translator = new GeminiStreamTranslator(fixed);
    translator.push(geminiErrorEvent(code, status));
    expect([translator.errored, translator.serverError]).toEqual([true, false]);
  });

  it('is no server failure for a complete stream, nor for error-like text in an answer', () => {
    const translator = new GeminiStreamTranslator(fixed);
    const quoted = JSON.stringify(geminiErrorEvent(503, 'UNAVAILABLE'));
    translator.push({ candidates: [{ content: { parts: [{ text: quoted }], role: 'model' }, index: 0, finishReason: 'STOP' }], responseId: 'r' });
    expect([translator.completed, translator.errored, translator.serverError]).toEqual([true, false, false]);
  });
});

describe('GeminiSseTranslator (bytes in, format-A SSE out)', () => {
  const upstream = geminiSse(GEMINI_STREAM_TEXT);

  it.each([[[1]], [[3, 7]], [[13]], [[64, 5]], [[100000]]])('gives the same output for chunk sizes %j', (sizes) => {
    const sse = new GeminiSseTranslator({ ...fixed, includeUsage: true });
    const text = chunks(upstream, sizes).map((c) => sse.feed(c)).join('') + sse.end();
    const data = events(text);
    expect(data[data.length - 1]).toBe('[DONE]');
    expect(text.endsWith(SSE_DONE)).toBe(true);
    const parsed = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(parsed.map((c) => c.choices[0]?.delta?.content ?? null).join('')).toBe('The capital of France is Paris. Bon appétit 🇫🇷');
    expect(parsed[parsed.length - 1].usage).toEqual({ prompt_tokens: 11, completion_tokens: 12, total_tokens: 23 });

    // The gateway's own usage tracker reads the translated stream like any format-A stream.
    const tracker = new SseUsageTracker('openai');
    for (const piece of chunks(text, [5])) tracker.feed(piece);
    tracker.end();
    expect(tracker.completed).toBe(true);
    expect(tracker.usage).toMatchObject({ inputTokens: 11, outputTokens: 12, totalTokens: 23 });
  });

  it('handles a last event without the trailing blank line', () => {
    const sse = new GeminiSseTranslator(fixed);
    const text = sse.feed(upstream.trimEnd()) + sse.end();
    expect(events(text).slice(-2)).toEqual([expect.stringContaining('"finish_reason":"stop"'), '[DONE]']);
  });

  const thinking = geminiSse([{ candidates: [{ content: { parts: [{ text: 'Thinking about it', thought: true }], role: 'model' }, index: 0 }], responseId: 'r' }]);
  const contents = (text: string) => events(text).map((d) => JSON.parse(d) as { choices?: { delta: { content?: string } }[]; error?: { code: string } });

  it('closes an open <thought> before the error event of a stream that ends early', () => {
    for (const upstream of [thinking, thinking.trimEnd()]) {
      const sse = new GeminiSseTranslator(fixed);
      const out = contents(sse.feed(upstream) + sse.end());
      expect(out.map((c) => c.choices?.[0].delta.content ?? c.error?.code)).toEqual(['', '<thought>Thinking about it', '</thought>', 'upstream_stream_incomplete']);
    }
  });

  it('gives the closing </thought> for the error event of a stream that broke, once', () => {
    const sse = new GeminiSseTranslator(fixed);
    const opened = sse.feed(thinking);
    const closing = sse.fail();
    expect(contents(opened + closing).map((c) => c.choices?.[0].delta.content)).toEqual(['', '<thought>Thinking about it', '</thought>']);
    expect(sse.fail()).toBe('');
    const plain = new GeminiSseTranslator(fixed);
    plain.feed(geminiSse(GEMINI_STREAM_TEXT.slice(0, 2)));
    expect(plain.fail()).toBe('');
  });

  it('reports a server-side in-stream error through the byte-level wrapper, split anywhere', () => {
    const upstream = geminiSse([GEMINI_STREAM_TEXT[0], geminiErrorEvent(503, 'UNAVAILABLE')]);
    for (const sizes of [[1], [7, 3], [100000]]) {
      const sse = new GeminiSseTranslator(fixed);
      const data = events(chunks(upstream, sizes).map((c) => sse.feed(c)).join('') + sse.end());
      expect(JSON.parse(data[data.length - 1]).error).toMatchObject({ code: 'service_unavailable' });
      expect(sse.translator.serverError).toBe(true);
    }
    const limited = new GeminiSseTranslator(fixed);
    limited.feed(geminiSse([geminiErrorEvent(429, 'RESOURCE_EXHAUSTED')]));
    limited.end();
    expect([limited.translator.errored, limited.translator.serverError]).toEqual([true, false]);
  });

  it('ends a truncated stream with an error event instead of [DONE]', () => {
    const sse = new GeminiSseTranslator(fixed);
    const text = sse.feed(geminiSse(GEMINI_STREAM_TEXT.slice(0, 2))) + sse.end();
    const data = events(text);
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data[data.length - 1])).toEqual({
      error: {
        message: 'The upstream stream ended before the response was complete',
        type: 'api_error',
        param: null,
        code: 'upstream_stream_incomplete',
      },
    });
  });
});
