import {
  GEMINI_ERROR_API_KEY_INVALID,
  GEMINI_ERROR_NOT_FOUND,
  GEMINI_ERROR_QUOTA,
  GEMINI_FUNCTION_CALL_RESPONSE,
  GEMINI_LOGPROBS_RESPONSE,
  GEMINI_MAX_TOKENS_RESPONSE,
  GEMINI_PROMPT_BLOCKED_RESPONSE,
  GEMINI_SAFETY_RESPONSE,
  GEMINI_TEXT_RESPONSE,
  GEMINI_THINKING_RESPONSE,
  GEMINI_TWO_CANDIDATES_RESPONSE,
} from './fixtures/gemini.fixtures';
import { defaultNewId, fromGeminiError, fromGeminiResponse, isGatewayCallId, mapFinishReason, retryDelaySeconds } from './gemini-response';
import { GeminiGenerateContentResponse } from './gemini-types';
import { extractUsage } from './usage';

let counter = 0;
const options = { model: 'gemini-2.0-flash', created: 1_750_000_000, newId: (prefix: string) => `${prefix}${++counter}` };

beforeEach(() => {
  counter = 0;
});

describe('generate-content → chat.completion', () => {
  it('translates a text answer with usage', () => {
    expect(fromGeminiResponse(GEMINI_TEXT_RESPONSE, options)).toEqual({
      id: 'chatcmpl-mG3eaJ2dKfGmz7IPkPqA0Qs',
      object: 'chat.completion',
      created: 1_750_000_000,
      model: 'gemini-2.0-flash',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'The capital of France is Paris.', refusal: null },
          finish_reason: 'stop',
          native_finish_reason: 'STOP',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    });
  });

  it("translates logprobsResult into the choice's logprobs (token, logprob, UTF-8 bytes, top_logprobs)", () => {
    const completion = fromGeminiResponse(GEMINI_LOGPROBS_RESPONSE, options);
    const bytes = (token: string) => [...Buffer.from(token, 'utf8')];
    expect(completion.choices[0].message.content).toBe('Oui, café');
    expect(completion.choices[0].logprobs).toEqual({
      content: [
        { token: 'Oui', logprob: -0.1, bytes: bytes('Oui'), top_logprobs: [{ token: 'Oui', logprob: -0.1, bytes: bytes('Oui') }, { token: 'Non', logprob: -2.4, bytes: bytes('Non') }] },
        { token: ', café', logprob: -0.3, bytes: [44, 32, 99, 97, 102, 195, 169], top_logprobs: [{ token: ', café', logprob: -0.3, bytes: bytes(', café') }, { token: '.', logprob: -1.5, bytes: [46] }] },
      ],
      refusal: null,
    });
    // Without topCandidates (logprobs asked, top_logprobs not), each token has no alternatives.
    const chosenOnly: GeminiGenerateContentResponse = structuredClone(GEMINI_LOGPROBS_RESPONSE);
    delete chosenOnly.candidates?.[0].logprobsResult?.topCandidates;
    expect(fromGeminiResponse(chosenOnly, options).choices[0].logprobs?.content.map((c) => c.top_logprobs)).toEqual([[], []]);
  });

  it('recognises the tool-call ids it makes itself', () => {
    expect(isGatewayCallId(defaultNewId('call_'))).toBe(true);
    expect(isGatewayCallId('call_1')).toBe(false);
    expect(isGatewayCallId('fc-7f3a')).toBe(false);
  });

  it('puts thought summaries in <thought> tags before the answer, as Google\'s OpenAI-compatible endpoint, and counts thinking as completion tokens', () => {
    const completion = fromGeminiResponse(GEMINI_THINKING_RESPONSE, { model: 'gemini-2.5-flash' });
    expect(completion.choices[0].message.content).toBe('<thought>**Weighing the options**\nThe user wants a short answer...</thought>42');
    expect(completion.model).toBe('gemini-2.5-flash');
    expect(completion.usage).toEqual({
      prompt_tokens: 20,
      completion_tokens: 514,
      total_tokens: 534,
      prompt_tokens_details: { cached_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 512 },
    });
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(5);
    expect(extractUsage('openai', completion)).toEqual({
      inputTokens: 20,
      outputTokens: 514,
      totalTokens: 534,
      cachedInputTokens: 8,
      cacheCreationInputTokens: 0,
      cacheCreation1hInputTokens: 0,
      reasoningTokens: 512,
    });
  });

  it('turns function calls into tool_calls with finish_reason tool_calls', () => {
    const completion = fromGeminiResponse(GEMINI_FUNCTION_CALL_RESPONSE, options);
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Boston, MA","unit":"celsius"}' },
              extra_content: { google: { thought_signature: 'CiQBVKhc7nNUDm1OEoHcvWf8zBnNq0Wu3zCPKc4b9jQ=' } },
            },
            { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"America/New_York"}' } },
          ],
        },
        finish_reason: 'tool_calls',
        native_finish_reason: 'STOP',
        logprobs: null,
      },
    ]);
  });

  it('maps MAX_TOKENS to length and safety stops to content_filter', () => {
    expect(fromGeminiResponse(GEMINI_MAX_TOKENS_RESPONSE, options).choices[0]).toMatchObject({
      message: { content: 'Once upon a' },
      finish_reason: 'length',
    });
    expect(fromGeminiResponse(GEMINI_SAFETY_RESPONSE, options).choices[0]).toMatchObject({
      message: { content: '' },
      finish_reason: 'content_filter',
    });
  });

  it('answers a blocked prompt with an empty content_filter choice', () => {
    const completion = fromGeminiResponse(GEMINI_PROMPT_BLOCKED_RESPONSE, options);
    expect(completion.id).toBe('chatcmpl-1');
    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', native_finish_reason: 'PROHIBITED_CONTENT', logprobs: null },
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 });
  });

  it('keeps one choice per candidate', () => {
    const choices = fromGeminiResponse(GEMINI_TWO_CANDIDATES_RESPONSE, options).choices;
    expect(choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, 'Heads'],
      [1, 'Tails'],
    ]);
  });

  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', false, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['OTHER', false, 'stop'],
    [undefined, false, null],
  ])('finishReason %s (tools %s) → %s', (reason, tools, expected) => {
    expect(mapFinishReason(reason, tools)).toBe(expected);
  });
});

describe('Gemini errors → format-A errors', () => {
  it('an invalid key becomes 401 authentication_error', () => {
    expect(fromGeminiError(400, GEMINI_ERROR_API_KEY_INVALID)).toEqual({
      status: 401,
      body: {
        error: {
          message: 'API key not valid. Please pass a valid API key.',
          type: 'authentication_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    });
  });

  it('quota errors (array-wrapped) become rate_limit_error', () => {
    expect(fromGeminiError(429, GEMINI_ERROR_QUOTA)).toEqual({
      status: 429,
      body: {
        error: {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          type: 'rate_limit_error',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
      // Its RetryInfo, for the retry-after header a format-A client retries by.
      retryAfterSeconds: 27,
    });
  });

  it.each([
    ['17s', 17],
    ['0.5s', 1],
    ['38.804097346s', 39],
    ['0s', 0],
    ['17', undefined],
    ['-3s', undefined],
    ['1e3s', undefined],
  ])('RetryInfo.retryDelay %s is %s seconds (rounded up); malformed ones none', (retryDelay, seconds) => {
    const details = [{ '@type': 'type.googleapis.com/google.rpc.Help', links: [] }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }];
    expect(retryDelaySeconds(details)).toBe(seconds);
  });

  it('no RetryInfo, no retry delay', () => {
    expect(retryDelaySeconds(undefined)).toBeUndefined();
    expect(retryDelaySeconds([{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', retryDelay: '5s' }])).toBeUndefined();
    expect(fromGeminiError(429, { error: { code: 429, message: 'Resource exhausted', status: 'RESOURCE_EXHAUSTED' } })).not.toHaveProperty('retryAfterSeconds');
  });

  it('unknown models become not_found_error', () => {
    const translated = fromGeminiError(404, GEMINI_ERROR_NOT_FOUND);
    expect(translated.status).toBe(404);
    expect(translated.body.error).toMatchObject({ type: 'not_found_error', code: 'model_not_found' });
    expect(translated.body.error.message).toContain('gemini-9.9-ultra');
  });

  it('a body that is not a Google error still yields the format-A shape', () => {
    expect(fromGeminiError(502, '<html>Bad Gateway</html>')).toEqual({
      status: 502,
      body: { error: { message: '<html>Bad Gateway</html>', type: 'api_error', param: null, code: 'upstream_502' } },
    });
    expect(fromGeminiError(503, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }).body.error).toEqual({
      message: 'The model is overloaded.',
      type: 'api_error',
      param: null,
      code: 'service_unavailable',
    });
  });
});
