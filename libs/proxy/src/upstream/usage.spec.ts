import { GEMINI_STREAM_TEXT, GEMINI_TEXT_RESPONSE, geminiSse } from './fixtures/gemini.fixtures';
import { ANTHROPIC_STREAM, ANTHROPIC_STREAM_OVERLOADED, GROQ_STREAM, OPENAI_STREAM_WITH_USAGE } from './fixtures/sse.fixtures';
import { createSseUsageTracker, extractUsage, SseUsageTracker } from './usage';
import { ProviderFormat } from '../providers/types';
import { usage } from './fixtures/usage.fixtures';

/** Feeds `text` as bytes cut at every `size` bytes, so multi-byte characters and lines are split. */
function track(format: ProviderFormat, text: string, size: number): SseUsageTracker {
  const tracker = createSseUsageTracker(format);
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) tracker.feed(bytes.subarray(at, at + size));
  tracker.end();
  return tracker;
}

const SIZES = [1, 2, 3, 5, 7, 64, 1 << 20];

describe('extractUsage (non-streaming bodies)', () => {
  it('reads format A chat completions with cached and reasoning details', () => {
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 300,
        total_tokens: 1500,
        prompt_tokens_details: { cached_tokens: 1024 },
        completion_tokens_details: { reasoning_tokens: 256 },
      },
    };
    expect(extractUsage('openai', body)).toEqual({
      inputTokens: 1200,
      outputTokens: 300,
      totalTokens: 1500,
      cachedInputTokens: 1024,
      cacheCreationInputTokens: 0,
      cacheCreation1hInputTokens: 0,
      reasoningTokens: 256,
    });
  });

  it('reads format A embeddings usage', () => {
    const body = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 8, total_tokens: 8 } };
    expect(extractUsage('openai', body)).toEqual(usage({ inputTokens: 8, outputTokens: 0 }));
  });

  it('reads format B messages, counting cache reads and writes as input', () => {
    const body = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hi' }],
      model: 'claude-sonnet-4-5',
      stop_reason: 'end_turn',
      usage: { input_tokens: 25, output_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 40 },
    };
    expect(extractUsage('anthropic', body)).toEqual(
      usage({ inputTokens: 165, outputTokens: 12, cachedInputTokens: 100, cacheCreationInputTokens: 40 }),
    );
  });

  it('reads the 1-hour part of B cache writes, in a message and in a stream', () => {
    const raw = { input_tokens: 10, output_tokens: 3, cache_creation_input_tokens: 500, cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 } };
    const expected = usage({ inputTokens: 510, outputTokens: 3, cacheCreationInputTokens: 500, cacheCreation1hInputTokens: 300 });
    expect(extractUsage('anthropic', { usage: raw })).toEqual(expected);
    const { output_tokens, ...start } = raw;
    const stream = [
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { usage: { ...start, output_tokens: 1 } } })}\n\n`,
      `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', usage: { output_tokens } })}\n\n`,
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    expect(track('anthropic', stream, 7).usage).toEqual(expected);
  });

  it('reads native Gemini usageMetadata', () => {
    expect(extractUsage('gemini', GEMINI_TEXT_RESPONSE)).toEqual(usage({ inputTokens: 11, outputTokens: 7 }));
  });

  it('reads DeepSeek cache hits and Groq x_groq usage', () => {
    expect(extractUsage('openai', { usage: { prompt_tokens: 50, completion_tokens: 5, prompt_cache_hit_tokens: 32 } })?.cachedInputTokens).toBe(32);
    expect(extractUsage('openai', { x_groq: { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } } })).toEqual(
      usage({ inputTokens: 3, outputTokens: 4 }),
    );
  });

  it('is undefined when there is none', () => {
    expect(extractUsage('openai', { choices: [] })).toBeUndefined();
    expect(extractUsage('anthropic', 'not json')).toBeUndefined();
    expect(extractUsage('openai', { usage: null })).toBeUndefined();
    // A transcription's duration is not a token usage: its answer is not taken for a free one.
    expect(extractUsage('openai', { text: 'hi', usage: { type: 'duration', seconds: 12 } })).toBeUndefined();
  });

  it('reads A audio tokens as parts of the prompt and completion counts', () => {
    const raw = {
      prompt_tokens: 1100,
      completion_tokens: 550,
      total_tokens: 1650,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 500 },
    };
    expect(extractUsage('openai', { usage: raw })).toEqual(usage({ inputTokens: 1100, outputTokens: 550, audioInputTokens: 1000, audioOutputTokens: 500 }));
  });

  it('reads the Responses-style usage a D provider answers through the catch-all', () => {
    const raw = { input_tokens: 120, input_tokens_details: { cached_tokens: 100 }, output_tokens: 80, output_tokens_details: { reasoning_tokens: 50 }, total_tokens: 200 };
    expect(extractUsage('openai', { object: 'response', usage: raw })).toEqual(usage({ inputTokens: 120, outputTokens: 80, cachedInputTokens: 100, reasoningTokens: 50 }));
  });

  it('adds reasoning reported beside the output (xAI: total = prompt + completion + reasoning) to the output, once', () => {
    const xai = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 410, completion_tokens_details: { reasoning_tokens: 300 } };
    expect(extractUsage('openai', { usage: xai })).toEqual(usage({ inputTokens: 100, outputTokens: 310, totalTokens: 410, reasoningTokens: 300 }));
    const responses = { input_tokens: 100, output_tokens: 10, output_tokens_details: { reasoning_tokens: 300 }, total_tokens: 410 };
    expect(extractUsage('openai', { object: 'response', usage: responses })).toEqual(usage({ inputTokens: 100, outputTokens: 310, totalTokens: 410, reasoningTokens: 300 }));
    // OpenAI's reading (reasoning inside completion_tokens), and no total to tell: the output as reported.
    const inside = { prompt_tokens: 100, completion_tokens: 310, total_tokens: 410, completion_tokens_details: { reasoning_tokens: 300 } };
    expect(extractUsage('openai', { usage: inside })?.outputTokens).toBe(310);
    const { total_tokens: _total, ...noTotal } = inside;
    expect(extractUsage('openai', { usage: noTotal })?.outputTokens).toBe(310);
    const chunk = { id: 'c', object: 'chat.completion.chunk', choices: [], usage: xai };
    expect(track('openai', `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`, 7).usage?.outputTokens).toBe(310);
  });

  it('reads B server tool uses (positive counts only) in a message and in a stream', () => {
    const raw = { input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 2, web_fetch_requests: 0, note: 'x' } };
    expect(extractUsage('anthropic', { usage: raw })).toEqual(usage({ inputTokens: 10, outputTokens: 5, serverToolUses: { web_search_requests: 2 } }));
    const stream = [
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1 } } })}\n\n`,
      `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', usage: { output_tokens: 3, server_tool_use: { web_search_requests: 1 } } })}\n\n`,
      `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', usage: { output_tokens: 5, server_tool_use: { web_search_requests: 2, web_fetch_requests: 1 } } })}\n\n`,
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    expect(track('anthropic', stream, 5).usage).toEqual(usage({ inputTokens: 10, outputTokens: 5, serverToolUses: { web_search_requests: 2, web_fetch_requests: 1 } }));
  });
});

describe('SseUsageTracker', () => {
  it.each(SIZES)('format A: usage from the final chunk, complete on [DONE] (split every %i bytes)', (size) => {
    const tracker = track('openai', OPENAI_STREAM_WITH_USAGE, size);
    expect(tracker.usage).toEqual(usage({ inputTokens: 19, outputTokens: 10, cachedInputTokens: 6 }));
    expect(tracker.completed).toBe(true);
  });

  it.each(SIZES)('format D with x_groq usage (split every %i bytes)', (size) => {
    const tracker = track('openai', GROQ_STREAM, size);
    expect(tracker.usage).toEqual(usage({ inputTokens: 12, outputTokens: 3 }));
    expect(tracker.completed).toBe(true);
  });

  it.each(SIZES)('format B: input from message_start, output from message_delta (split every %i bytes)', (size) => {
    const tracker = track('anthropic', ANTHROPIC_STREAM, size);
    expect(tracker.usage).toEqual(usage({ inputTokens: 165, outputTokens: 15, cachedInputTokens: 100, cacheCreationInputTokens: 40 }));
    expect(tracker.completed).toBe(true);
  });

  it.each(SIZES)('native Gemini: latest usageMetadata, complete on finishReason (split every %i bytes)', (size) => {
    const tracker = track('gemini', geminiSse(GEMINI_STREAM_TEXT), size);
    expect(tracker.usage).toEqual(usage({ inputTokens: 11, outputTokens: 12 }));
    expect(tracker.completed).toBe(true);
  });

  it.each([1, 7, 64])('a Responses-style stream: usage from response.completed, text from its deltas (split every %i bytes)', (size) => {
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const stream = [
      event('response.created', { response: { id: 'resp_1', status: 'in_progress', usage: null } }),
      event('response.output_text.delta', { item_id: 'msg_1', delta: 'Hello ' }),
      event('response.output_text.delta', { item_id: 'msg_1', delta: 'world' }),
      event('response.completed', { response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 9, output_tokens: 2, total_tokens: 11 } } }),
    ].join('');
    const tracker = track('openai', stream, size);
    expect(tracker.usage).toEqual(usage({ inputTokens: 9, outputTokens: 2 }));
    expect(tracker.usageFinal).toBe(true);
    expect(tracker.textChars).toBe('Hello world'.length);
    expect(tracker.completed).toBe(true);
  });

  describe('a Responses-style stream ends with its terminal event, not [DONE]', () => {
    const event = (type: string, data: Record<string, unknown>, named = true) => `${named ? `event: ${type}\n` : ''}data: ${JSON.stringify({ type, ...data })}\n\n`;
    const opening = [
      event('response.created', { response: { id: 'resp_1', status: 'in_progress', usage: null } }),
      event('response.output_text.delta', { item_id: 'msg_1', delta: 'Hello' }),
    ].join('');
    const spent = { input_tokens: 9, output_tokens: 1, total_tokens: 10 };

    it.each([1, 7, 64])('response.incomplete (max_output_tokens) completes it, with its usage final (split every %i bytes)', (size) => {
      const end = event('response.incomplete', { response: { id: 'resp_1', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: spent } });
      const tracker = track('openai', opening + end, size);
      expect([tracker.completed, tracker.errored, tracker.usageFinal]).toEqual([true, false, true]);
      expect(tracker.usage).toEqual(usage({ inputTokens: 9, outputTokens: 1 }));
      expect(track('openai', opening, size).completed).toBe(false);
    });

    it.each([1, 7, 64])('response.failed fails it like an error chunk: its usage is read, not final (split every %i bytes)', (size) => {
      const failure = { id: 'resp_1', status: 'failed', error: { code: 'server_error', message: 'The model failed' }, usage: spent };
      for (const named of [true, false]) {
        const tracker = track('openai', opening + event('response.failed', { response: failure }, named), size);
        expect([named, tracker.errored, tracker.completed, tracker.usageFinal]).toEqual([named, true, false, false]);
        expect(tracker.usage).toEqual(usage({ inputTokens: 9, outputTokens: 1 }));
        expect(tracker.textChars).toBe('Hello'.length);
      }
    });

    it.each([1, 7, 64])('event: error fails it, named or by its data type alone (split every %i bytes)', (size) => {
      for (const named of [true, false]) {
        const error = event('error', { code: 'ERR_SOMETHING', message: 'Something went wrong', param: null, sequence_number: 2 }, named);
        const tracker = track('openai', opening + error, size);
        expect([named, tracker.errored, tracker.completed, tracker.usage]).toEqual([named, true, false, undefined]);
      }
    });

    it('a chat-completions chunk quoting those events in its text is neither failed nor complete', () => {
      const quoted = '{"type":"error","code":"x"} event: response.failed {"type":"response.completed"}';
      const chunk = `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: quoted }, finish_reason: null }] })}\n\n`;
      const tracker = track('openai', chunk, 5);
      expect([tracker.errored, tracker.completed, tracker.textChars]).toEqual([false, false, JSON.stringify(quoted).length - 2]);
    });
  });

  it('accepts CRLF framing and string chunks', () => {
    const tracker = createSseUsageTracker('openai');
    tracker.feed(OPENAI_STREAM_WITH_USAGE.replace(/\n/g, '\r\n'));
    tracker.end();
    expect(tracker.usage?.inputTokens).toBe(19);
    expect(tracker.completed).toBe(true);
  });

  it('knows a stream cut before [DONE] did not complete, keeping what it saw', () => {
    const cut = OPENAI_STREAM_WITH_USAGE.slice(0, OPENAI_STREAM_WITH_USAGE.indexOf('data: [DONE]'));
    const tracker = track('openai', cut, 9);
    expect(tracker.usage?.totalTokens).toBe(29);
    expect(tracker.completed).toBe(false);
    const early = track('anthropic', ANTHROPIC_STREAM.slice(0, ANTHROPIC_STREAM.indexOf('event: message_delta')), 4);
    expect(early.usage).toEqual(usage({ inputTokens: 165, outputTokens: 1, cachedInputTokens: 100, cacheCreationInputTokens: 40 }));
    expect(early.completed).toBe(false);
  });

  it('counts the last event even without its closing blank line', () => {
    const tracker = track('openai', OPENAI_STREAM_WITH_USAGE.trimEnd(), 11);
    expect(tracker.completed).toBe(true);
  });

  it('marks B error events', () => {
    const tracker = track('anthropic', ANTHROPIC_STREAM_OVERLOADED, 6);
    expect(tracker.errored).toBe(true);
    expect(tracker.completed).toBe(false);
    expect(tracker.usage).toEqual(usage({ inputTokens: 30, outputTokens: 1 }));
  });

  it('marks format-A error events', () => {
    const tracker = track('openai', 'data: {"error":{"message":"boom","type":"server_error"}}\n\n', 3);
    expect(tracker.errored).toBe(true);
    expect(tracker.usage).toBeUndefined();
  });

  /** Length of a text as it travels in a JSON string (escapes included), what the tracker measures. */
  const escaped = (...texts: string[]) => texts.reduce((sum, text) => sum + JSON.stringify(text).length - 2, 0);

  it.each([1, 3, 64])('measures the answer text of A and B streams, not their framing or usage (split every %i bytes)', (size) => {
    expect(track('openai', OPENAI_STREAM_WITH_USAGE, size).textChars).toBe(escaped('Grüße, ', 'the word "usage": {not an object} 日本語 👋'));
    expect(track('openai', GROQ_STREAM, size).textChars).toBe(2);
    expect(track('anthropic', ANTHROPIC_STREAM, size).textChars).toBe(escaped('Héllo — "usage": {"output_tokens": 999} 你好', ' 🌍!'));
    const tool = 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":\\"Paris\\"}"}}]}}]}\n\n';
    expect(track('openai', tool, size).textChars).toBe(escaped('{"city":"Paris"}'));
  });

  it.each([1, 7, 64])('a Responses-style stream counts each text once, from its deltas, not again from the done events (split every %i bytes)', (size) => {
    const event = (type: string, data: Record<string, unknown>, named = true) => `${named ? `event: ${type}\n` : ''}data: ${JSON.stringify({ type, ...data })}\n\n`;
    const args = '{"city":"Paris"}';
    const message = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello world', annotations: [] }] };
    const refusal = { id: 'msg_2', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'No.' }] };
    const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: args, status: 'completed' };
    const completed = { id: 'resp_1', status: 'completed', output: [message, refusal, call], usage: { input_tokens: 30, output_tokens: 12, total_tokens: 42 } };
    const stream = [
      event('response.created', { response: { id: 'resp_1', status: 'in_progress', output: [], usage: null } }),
      event('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }),
      event('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
      event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello ' }),
      event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'world' }, false),
      event('response.output_text.done', { item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hello world' }),
      event('response.content_part.done', { item_id: 'msg_1', output_index: 0, content_index: 0, part: message.content[0] }),
      event('response.output_item.done', { output_index: 0, item: message }),
      event('response.refusal.delta', { item_id: 'msg_2', output_index: 1, content_index: 0, delta: 'No.' }),
      event('response.refusal.done', { item_id: 'msg_2', output_index: 1, content_index: 0, refusal: 'No.' }),
      event('response.content_part.done', { item_id: 'msg_2', output_index: 1, content_index: 0, part: refusal.content[0] }, false),
      event('response.output_item.done', { output_index: 1, item: refusal }),
      event('response.output_item.added', { output_index: 2, item: { ...call, arguments: '', status: 'in_progress' } }),
      event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: '{"city":' }),
      event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: '"Paris"}' }, false),
      event('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 2, arguments: args }),
      event('response.output_item.done', { output_index: 2, item: call }, false),
      // Audio comes as base64 bytes, which are no answer text; its transcript is.
      event('response.audio.delta', { response_id: 'resp_1', item_id: 'msg_3', output_index: 3, content_index: 0, delta: 'UklGRiQAAABXQVZFZm10IBAAAAAB' }),
      event('response.output_audio.delta', { item_id: 'msg_3', output_index: 3, content_index: 0, delta: 'AAEAQB8AAIA+AAACABAAZGF0YQ==' }, false),
      event('response.audio_transcript.delta', { item_id: 'msg_3', output_index: 3, content_index: 0, delta: 'Hi' }),
    ].join('');
    const broken = track('openai', stream, size);
    expect(broken.textChars).toBe(escaped('Hello world', 'No.', args, 'Hi'));
    expect(broken.usage).toBeUndefined();
    const whole = track('openai', stream + event('response.completed', { response: completed }), size);
    expect(whole.textChars).toBe(escaped('Hello world', 'No.', args, 'Hi'));
    expect(whole.usage).toEqual(usage({ inputTokens: 30, outputTokens: 12 }));
    expect(whole.usageFinal).toBe(true);
  });

  it('knows when its usage is the final account: A at once, B only once the stream completed', () => {
    const cutA = OPENAI_STREAM_WITH_USAGE.slice(0, OPENAI_STREAM_WITH_USAGE.indexOf('data: [DONE]'));
    expect(track('openai', cutA, 9).usageFinal).toBe(true);
    expect(track('openai', OPENAI_STREAM_WITH_USAGE.slice(0, OPENAI_STREAM_WITH_USAGE.indexOf('"usage":{')), 9).usageFinal).toBe(false);
    expect(track('anthropic', ANTHROPIC_STREAM, 5).usageFinal).toBe(true);
    expect(track('anthropic', ANTHROPIC_STREAM.slice(0, ANTHROPIC_STREAM.indexOf('event: message_delta')), 5).usageFinal).toBe(false);
    expect(track('anthropic', ANTHROPIC_STREAM_OVERLOADED, 5).usageFinal).toBe(false);
  });

  it('ignores unknown SSE fields and comments', () => {
    const tracker = track('openai', `: keep-alive\nfoo: bar\n\n${OPENAI_STREAM_WITH_USAGE}`, 8);
    expect(tracker.completed).toBe(true);
    expect(tracker.usage?.outputTokens).toBe(10);
  });
});
