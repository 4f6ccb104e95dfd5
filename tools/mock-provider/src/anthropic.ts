/**
 * Format B: Anthropic messages (JSON and the named-event SSE stream, with thinking, tool use and
 * prompt caching from ./anthropic-content), token counting and the models list, behind `x-api-key`
 * plus `anthropic-version`.
 */
import { AnswerBlock, buildAnswer, inputUsage, readAnthropicPrompt, serverToolUse, thinkingEnabled } from './anthropic-content';
import { isRecord, splitChunks } from './content';
import { anthropicError } from './errors';
import { checkKey, EventStream, header, sendJson, type Exchange } from './exchange';

/**
 * The credential: `x-api-key`, or `Authorization: Bearer <key>` (what `@anthropic-ai/sdk` 1.x sends for
 * `apiKey`). Recorded headers tell which one a client used.
 */
function credential(ex: Exchange): string | undefined {
  const apiKey = header(ex, 'x-api-key');
  if (apiKey) return apiKey;
  const bearer = /^Bearer\s+(.+)$/i.exec(header(ex, 'authorization')?.trim() ?? '');
  return bearer?.[1]?.trim();
}

/** Answers in Anthropic's error format and returns false when the credential headers are not right. */
function authorize(ex: Exchange): boolean {
  const status = checkKey(ex.settings, credential(ex));
  if (status !== 'ok') {
    const message = status === 'missing' ? 'x-api-key header is required' : 'invalid x-api-key';
    sendJson(ex, 401, anthropicError(401, message));
    return false;
  }
  if (!header(ex, 'anthropic-version')) {
    sendJson(ex, 400, anthropicError(400, 'anthropic-version: header is required'));
    return false;
  }
  return true;
}

function invalid(ex: Exchange, message: string): void {
  sendJson(ex, 400, anthropicError(400, message));
}

function responseHeaders(ex: Exchange): Record<string, string> {
  return { 'request-id': `req_mock${ex.seq}` };
}

function validate(ex: Exchange, body: Record<string, unknown>, needMaxTokens: boolean): boolean {
  if (typeof body['model'] !== 'string' || body['model'] === '') {
    invalid(ex, 'model: Field required');
    return false;
  }
  if (needMaxTokens && typeof body['max_tokens'] !== 'number') {
    invalid(ex, 'max_tokens: Field required');
    return false;
  }
  if (!Array.isArray(body['messages'])) {
    invalid(ex, 'messages: Field required');
    return false;
  }
  return true;
}

const sse = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/** JSON pieces of a tool's input as `input_json_delta` sends them: an empty one first, then short slices. */
function jsonPieces(input: unknown): string[] {
  const json = JSON.stringify(input);
  const pieces = [''];
  for (let at = 0; at < json.length; at += 12) pieces.push(json.slice(at, at + 12));
  return pieces;
}

/** The stream events of one content block: start (with empty fields), deltas, stop. */
function blockEvents(block: AnswerBlock, index: number): string[] {
  const delta = (value: Record<string, unknown>) => sse('content_block_delta', { type: 'content_block_delta', index, delta: value });
  const events: string[] = [];
  if (block.type === 'thinking') {
    events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const piece of splitChunks(block.thinking)) events.push(delta({ type: 'thinking_delta', thinking: piece }));
    events.push(delta({ type: 'signature_delta', signature: block.signature }));
  } else if (block.type === 'tool_use') {
    events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }));
    for (const piece of jsonPieces(block.input)) events.push(delta({ type: 'input_json_delta', partial_json: piece }));
  } else {
    events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    for (const piece of splitChunks(block.text)) events.push(delta({ type: 'text_delta', text: piece }));
  }
  events.push(sse('content_block_stop', { type: 'content_block_stop', index }));
  return events;
}

export async function handleAnthropicMessages(ex: Exchange): Promise<void> {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  if (!validate(ex, body, true)) return;
  const forced = isRecord(body['tool_choice']) && (body['tool_choice']['type'] === 'any' || body['tool_choice']['type'] === 'tool');
  if (forced && thinkingEnabled(body)) {
    invalid(ex, 'Thinking may not be enabled when tool_choice forces tool use.');
    return;
  }
  const model = body['model'] as string;
  const prompt = readAnthropicPrompt(body);
  const answer = buildAnswer(body, prompt, ex.seq, ex.reply);
  const input = inputUsage(prompt, ex.promptCache);
  const id = `msg_mock${ex.seq}`;
  const message = { id, type: 'message', role: 'assistant', model };
  const tools = serverToolUse(body);
  const toolUsage = tools ? { server_tool_use: tools } : {};

  if (body['stream'] !== true) {
    const usage = { ...input, output_tokens: answer.outputTokens, ...toolUsage, service_tier: 'standard' };
    const content = answer.blocks;
    sendJson(ex, 200, { ...message, content, stop_reason: answer.stopReason, stop_sequence: null, usage }, responseHeaders(ex));
    return;
  }

  const startUsage = { ...input, output_tokens: 1, service_tier: 'standard' };
  const events = [sse('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: startUsage } })];
  answer.blocks.forEach((block, index) => {
    const [start, ...rest] = blockEvents(block, index);
    events.push(start, ...(index === 0 ? [sse('ping', { type: 'ping' })] : []), ...rest);
  });
  // message_delta carries the whole message's counters so far (cumulative, not increments).
  const { cache_creation: _split, ...cumulative } = input;
  events.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: answer.stopReason, stop_sequence: null },
      usage: { ...cumulative, output_tokens: answer.outputTokens, ...toolUsage },
    }),
    sse('message_stop', { type: 'message_stop' }),
  );
  const failure = ex.takeStreamError();
  if (failure) {
    events.splice(failure.afterChunks ?? 1);
    const error = { type: failure.type ?? 'overloaded_error', message: failure.message ?? 'Overloaded' };
    events.push(sse('error', { type: 'error', error }));
  }
  await new EventStream(ex, 'text/event-stream; charset=utf-8', responseHeaders(ex)).sendAll(events);
}

export function handleAnthropicCountTokens(ex: Exchange): void {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  if (!validate(ex, body, false)) return;
  sendJson(ex, 200, { input_tokens: readAnthropicPrompt(body).tokens }, responseHeaders(ex));
}

export function handleAnthropicModels(ex: Exchange): void {
  if (!authorize(ex)) return;
  const data = ex.settings.models.map((id) => ({
    type: 'model',
    id,
    display_name: id,
    created_at: '2025-01-01T00:00:00Z',
  }));
  sendJson(
    ex,
    200,
    { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null },
    responseHeaders(ex),
  );
}
