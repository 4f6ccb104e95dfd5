/**
 * Format A / D: OpenAI chat completions (JSON and SSE), embeddings and the models list, behind
 * `Authorization: Bearer <key>`.
 */
import { countTokens, embedText, isRecord, textOf, toBase64Floats } from './content';
import { openaiError } from './errors';
import { checkKey, EventStream, header, sendJson, type Exchange } from './exchange';
import { choiceDeltas, choiceMessage, openaiAnswer } from './openai-content';

export const DEFAULT_EMBEDDING_DIMENSIONS = 8;
const MODEL_CREATED = 1_700_000_000;

const MISSING_KEY =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth " +
  '(i.e. Authorization: Bearer YOUR_KEY).';

function maskKey(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 3)}***${key.slice(-4)}`;
}

/**
 * Answers 401 in OpenAI's format and returns false when the key is missing or rejected: a bearer
 * key, or `x-api-key` as Anthropic's OpenAI-compatible endpoint (`{root}/v1/chat/completions`)
 * also takes it.
 */
function authorize(ex: Exchange): boolean {
  const auth = header(ex, 'authorization');
  const match = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  const key = match?.[1]?.trim() ?? header(ex, 'x-api-key')?.trim();
  const status = checkKey(ex.settings, key);
  if (status === 'ok') return true;
  const body =
    status === 'missing'
      ? openaiError(401, MISSING_KEY, { code: null })
      : openaiError(401, `Incorrect API key provided: ${maskKey(key ?? '')}.`, { code: 'invalid_api_key' });
  sendJson(ex, 401, body);
  return false;
}

function missingParam(ex: Exchange, param: string): void {
  sendJson(
    ex,
    400,
    openaiError(400, `Missing required parameter: '${param}'.`, { param, code: 'missing_required_parameter' }),
  );
}

function requestHeaders(ex: Exchange): Record<string, string> {
  return { 'x-request-id': `req_mock_${ex.seq}`, 'openai-processing-ms': '0' };
}

export async function handleOpenAIChat(ex: Exchange): Promise<void> {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  if (typeof body['model'] !== 'string' || body['model'] === '') return missingParam(ex, 'model');
  if (!Array.isArray(body['messages'])) return missingParam(ex, 'messages');
  const model = body['model'];
  const messages = body['messages'].filter(isRecord);

  let promptChars = 0;
  let lastUser = '';
  for (const message of messages) {
    const text = textOf(message['content']);
    promptChars += text.length;
    if (message['role'] === 'user') lastUser = text;
  }
  const answer = openaiAnswer(body, ex.seq, lastUser, messages.at(-1)?.['role'], promptChars, ex.reply);
  const usage = {
    prompt_tokens: answer.promptTokens,
    completion_tokens: answer.completionTokens,
    total_tokens: answer.promptTokens + answer.completionTokens,
  };
  const id = `chatcmpl-mock${ex.seq}`;
  const created = Math.floor(Date.now() / 1000);

  if (body['stream'] !== true) {
    sendJson(
      ex,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: answer.choices.map((choice, index) => ({ index, message: choiceMessage(choice), logprobs: null, finish_reason: choice.finishReason })),
        usage,
        system_fingerprint: 'fp_mock',
      },
      requestHeaders(ex),
    );
    return;
  }

  const streamOptions = body['stream_options'];
  const includeUsage = isRecord(streamOptions) && streamOptions['include_usage'] === true;
  const base = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_mock' };
  const chunk = (index: number, delta: Record<string, unknown>, finish: string | null): string => {
    const payload: Record<string, unknown> = {
      ...base,
      choices: [{ index, delta, logprobs: null, finish_reason: finish }],
    };
    if (includeUsage) payload['usage'] = null;
    return `data: ${JSON.stringify(payload)}\n\n`;
  };
  const events = choiceDeltas(answer.choices).map(([index, delta]) => chunk(index, delta, null));
  answer.choices.forEach((choice, index) => events.push(chunk(index, {}, choice.finishReason)));
  if (includeUsage) events.push(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  events.push('data: [DONE]\n\n');
  await new EventStream(ex, 'text/event-stream; charset=utf-8', requestHeaders(ex)).sendAll(events);
}

/** The texts of an embeddings `input`: a string, strings, a token array or token arrays. */
function embeddingInputs(input: unknown): string[] | undefined {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((x) => typeof x === 'number')) return [input.join(' ')];
  const out: string[] = [];
  for (const item of input) {
    if (typeof item === 'string') out.push(item);
    else if (Array.isArray(item)) out.push(item.join(' '));
    else return undefined;
  }
  return out;
}

export function handleOpenAIEmbeddings(ex: Exchange): void {
  if (!authorize(ex)) return;
  const body = isRecord(ex.body) ? ex.body : {};
  if (typeof body['model'] !== 'string' || body['model'] === '') return missingParam(ex, 'model');
  const inputs = embeddingInputs(body['input']);
  if (!inputs) return missingParam(ex, 'input');
  const dims = body['dimensions'];
  const dimensions =
    typeof dims === 'number' && Number.isInteger(dims) && dims > 0 ? Math.min(dims, 8192) : DEFAULT_EMBEDDING_DIMENSIONS;
  const base64 = body['encoding_format'] === 'base64';
  let tokens = 0;
  const data = inputs.map((text, index) => {
    tokens += countTokens(text);
    const vector = embedText(text, dimensions);
    return { object: 'embedding', index, embedding: base64 ? toBase64Floats(vector) : vector };
  });
  sendJson(
    ex,
    200,
    { object: 'list', data, model: body['model'], usage: { prompt_tokens: tokens, total_tokens: tokens } },
    requestHeaders(ex),
  );
}

function ownerOf(id: string): string {
  if (/^(gpt-|o\d|text-embedding-|chatgpt-)/.test(id)) return 'openai';
  if (id.startsWith('claude-')) return 'anthropic';
  if (id.startsWith('gemini-')) return 'google';
  if (/^(mistral|codestral|ministral|pixtral|magistral|open-mistral)/.test(id)) return 'mistralai';
  return 'system';
}

function modelEntry(id: string): Record<string, unknown> {
  return { id, object: 'model', created: MODEL_CREATED, owned_by: ownerOf(id) };
}

export function handleOpenAIModels(ex: Exchange): void {
  if (!authorize(ex)) return;
  sendJson(ex, 200, { object: 'list', data: ex.settings.models.map(modelEntry) }, requestHeaders(ex));
}

/** `GET .../models/{id}`. */
export function handleOpenAIModel(ex: Exchange, id: string): void {
  if (!authorize(ex)) return;
  if (!ex.settings.models.includes(id)) {
    sendJson(
      ex,
      404,
      openaiError(404, `The model '${id}' does not exist`, { param: 'model', code: 'model_not_found' }),
    );
    return;
  }
  sendJson(ex, 200, modelEntry(id), requestHeaders(ex));
}
