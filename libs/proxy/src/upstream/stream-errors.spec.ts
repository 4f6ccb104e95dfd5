import { ProviderFormat } from '../providers/types';
import { createSseUsageTracker, isServerStreamError } from './usage';

function track(format: ProviderFormat, text: string, size = 7) {
  const tracker = createSseUsageTracker(format);
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) tracker.feed(bytes.subarray(at, at + size));
  tracker.end();
  return tracker;
}

const opening = 'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n';
const chunk = (error: Record<string, unknown>) => `${opening}data: ${JSON.stringify({ error })}\n\n`;
const responses = (type: string, data: Record<string, unknown>, named: boolean) =>
  `event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}\n\n${named ? `event: ${type}\n` : ''}data: ${JSON.stringify({ type, ...data })}\n\n`;
const failed = (error: unknown, named = true) => responses('response.failed', { response: { id: 'resp_1', status: 'failed', error } }, named);
const errorEvent = (data: Record<string, unknown>, named = true) => responses('error', { ...data, message: 'Something went wrong', param: null, sequence_number: 2 }, named);
const anthropic = (error: Record<string, unknown>) =>
  `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":3,"output_tokens":1}}}\n\nevent: error\ndata: ${JSON.stringify({ type: 'error', error })}\n\n`;

/** In-stream errors: the provider failing (its 5xx after the 200, counted by the breaker) or the request's fault. */
describe('SseUsageTracker, in-stream errors', () => {
  it.each([
    ['A: type server_error, code null', 'openai', chunk({ message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null })],
    ['A: code server_error', 'openai', chunk({ message: 'boom', code: 'server_error' })],
    ['A: type api_error', 'openai', chunk({ message: 'boom', type: 'api_error' })],
    ['A: type overloaded_error', 'openai', chunk({ message: 'Overloaded', type: 'overloaded_error' })],
    ['A: type service_unavailable', 'openai', chunk({ message: 'Try later', type: 'service_unavailable' })],
    ['D: a numeric 5xx code', 'openai', chunk({ object: 'error', message: 'Internal Server Error', type: 'InternalServerError', code: 503 })],
    ['D: a 5xx code sent as a string', 'openai', chunk({ object: 'error', message: 'Service Unavailable', type: 'ServiceUnavailableError', code: '503' })],
    ['Responses: response.failed with server_error', 'openai', failed({ code: 'server_error', message: 'The model failed' })],
    ['Responses: response.failed with server_error, unnamed', 'openai', failed({ code: 'server_error', message: 'The model failed' }, false)],
    ['Responses: event: error with server_error', 'openai', errorEvent({ code: 'server_error' })],
    ['Responses: an error event by its data type alone', 'openai', errorEvent({ code: 'server_error' }, false)],
    ['B: overloaded_error', 'anthropic', anthropic({ type: 'overloaded_error', message: 'Overloaded' })],
    ['B: api_error', 'anthropic', anthropic({ type: 'api_error', message: 'Internal error' })],
    ['B: timeout_error', 'anthropic', anthropic({ type: 'timeout_error', message: 'Timeout' })],
    ['B: an error without a type', 'anthropic', anthropic({ message: 'Internal error' })],
  ] as const)('the provider failing: %s', (_name, format, stream) => {
    const tracker = track(format, stream);
    expect([tracker.errored, tracker.serverError, tracker.completed]).toEqual([true, true, false]);
  });

  it.each([
    ['A: invalid_request_error (context length)', 'openai', chunk({ message: 'too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' })],
    ['A: rate_limit_exceeded', 'openai', chunk({ message: 'Rate limit reached', type: 'tokens', param: null, code: 'rate_limit_exceeded' })],
    ['A: a rate-limit code under a server-side type (the code decides)', 'openai', chunk({ message: 'Rate limit reached', type: 'api_error', code: 'rate_limit_exceeded' })],
    ['A: content_filter', 'openai', chunk({ message: 'filtered', type: null, param: 'prompt', code: 'content_filter' })],
    ['D: a numeric 4xx code', 'openai', chunk({ object: 'error', message: 'Bad Request', type: 'BadRequestError', code: 400 })],
    ['D: a 4xx code sent as a string, under a server-side type', 'openai', chunk({ object: 'error', message: 'Too Many Requests', type: 'api_error', code: '429' })],
    ['Responses: response.failed with rate_limit_exceeded', 'openai', failed({ code: 'rate_limit_exceeded', message: 'slow down' })],
    ['Responses: response.failed with invalid_prompt', 'openai', failed({ code: 'invalid_prompt', message: 'flagged' })],
    ['Responses: response.failed without an error', 'openai', failed(null)],
    ['Responses: event: error with an unknown code', 'openai', errorEvent({ code: 'ERR_SOMETHING' })],
    ['Responses: event: error with a client-side error object', 'openai', errorEvent({ error: { type: 'invalid_request_error', code: 'context_length_exceeded' } })],
    ['B: invalid_request_error', 'anthropic', anthropic({ type: 'invalid_request_error', message: 'bad' })],
    ['B: rate_limit_error', 'anthropic', anthropic({ type: 'rate_limit_error', message: 'slow down' })],
  ] as const)("the request's fault: %s", (_name, format, stream) => {
    const tracker = track(format, stream);
    expect([tracker.errored, tracker.serverError, tracker.completed]).toEqual([true, false, false]);
  });

  it('is not a server error without an error, nor for error-like text in an answer', () => {
    const quoted = JSON.stringify({ error: { type: 'server_error' }, type: 'error', code: 'server_error' });
    const stream = `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: quoted }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
    const tracker = track('openai', stream, 5);
    expect([tracker.errored, tracker.serverError, tracker.completed]).toEqual([false, false, true]);
  });

  it('reads a status as a number or as its digits in a string (D providers, Gemini), never a longer string', () => {
    const classify = (...codes: unknown[]) => codes.map((code) => isServerStreamError({ code, message: 'm' }));
    expect(classify(500, 503, 504, 599, '500', '503', '504')).toEqual([true, true, true, true, true, true, true]);
    expect(classify(400, 429, 600, '400', '429', '403', '600', '5030', ' 503', 'E503', '')).toEqual(Array(11).fill(false));
  });

  it('stays a server error when a client-side error follows in the same stream', () => {
    const tracker = track('openai', chunk({ type: 'server_error', message: 'a' }) + `data: ${JSON.stringify({ error: { type: 'invalid_request_error', message: 'b' } })}\n\n`);
    expect(tracker.serverError).toBe(true);
  });
});
