/**
 * Format B: Anthropic messages (JSON and the named-event SSE stream), token counting and the models
 * list, behind `x-api-key` plus `anthropic-version`.
 */
import { complete, isRecord, splitChunks, textOf } from './content';
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

interface Prompt {
  chars: number;
  lastUser: string;
}

function readPrompt(body: Record<string, unknown>): Prompt {
  let chars = textOf(body['system']).length;
  let lastUser = '';
  for (const message of (body['messages'] as unknown[]).filter(isRecord)) {
    const text = textOf(message['content']);
    chars += text.length;
    if (message['role'] === 'user') lastUser = text;
  }
  return { chars, lastUser };
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

export async function handleAnthropicMessages(ex: Exchange): Promise<void> {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  if (!validate(ex, body, true)) return;
  const model = body['model'] as string;
  const prompt = readPrompt(body);
  const result = complete(prompt.lastUser, prompt.chars, body['max_tokens'], ex.reply);
  const stopReason = result.truncated ? 'max_tokens' : 'end_turn';
  const id = `msg_mock${ex.seq}`;

  if (body['stream'] !== true) {
    sendJson(
      ex,
      200,
      {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: result.text }],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: {
          input_tokens: result.promptTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: result.completionTokens,
        },
      },
      responseHeaders(ex),
    );
    return;
  }

  const events = [
    sse('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: result.promptTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    sse('ping', { type: 'ping' }),
  ];
  for (const piece of splitChunks(result.text)) {
    events.push(
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }),
    );
  }
  events.push(
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: result.completionTokens },
    }),
    sse('message_stop', { type: 'message_stop' }),
  );
  await new EventStream(ex, 'text/event-stream; charset=utf-8', responseHeaders(ex)).sendAll(events);
}

export function handleAnthropicCountTokens(ex: Exchange): void {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  if (!validate(ex, body, false)) return;
  sendJson(ex, 200, { input_tokens: Math.ceil(readPrompt(body).chars / 4) }, responseHeaders(ex));
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
