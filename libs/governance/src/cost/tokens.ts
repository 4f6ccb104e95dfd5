import { DEFAULT_MAX_OUTPUT_TOKENS, FALLBACK_CHARS_PER_TOKEN } from '../data/limits';
import { MergeBudget, TokenizerChoice, approximateTokens, countTextTokens, tokenizerFor } from './tokenizer';

/**
 * Input token count of a request body (stage 2). Counted: format A `messages` (string content,
 * content parts, `tool_calls`, `name`), format B `system` and content blocks (`text`, `tool_use`
 * input, `tool_result` content, text documents, `thinking`), tool and function definitions and a
 * JSON-schema `response_format` (as their JSON), embeddings `input` (strings or token arrays; the
 * message items of a Responses-style `input` as messages), `instructions`, a legacy `prompt` (and
 * its FIM `suffix`) and Mistral's conversation `inputs`. Chat messages add the chat-format
 * overhead of provider A (4 tokens per message, 3 to prime the reply). Images count a flat
 * estimate; audio and binary documents are not counted.
 *
 * Bodies with more than EXACT_COUNT_CHAR_BUDGET characters of text are tokenized up to the
 * budget and extrapolated from the measured tokens per character beyond it, to keep stage 2
 * linear and fast on very large bodies.
 *
 * The same walk notes prompt-cache markers (`cache_control`, format B: on the body, a system or
 * content block, a tool, or a message), so stage 2 can price the input as a cache write.
 */

export const MESSAGE_OVERHEAD_TOKENS = 4;
export const REPLY_PRIMING_TOKENS = 3;
/** A high-detail 1024x1024 image for provider A; provider B charges a similar amount per megapixel. */
export const IMAGE_TOKEN_ESTIMATE = 765;
export const EXACT_COUNT_CHAR_BUDGET = 1_048_576;

type Json = Record<string, unknown>;

/** The costliest prompt-cache write a body asks for: none, 5 minutes (the default TTL) or 1 hour. */
export type CacheWrite = 'none' | '5m' | '1h';

export interface InputCount {
  tokens: number;
  cacheWrite: CacheWrite;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class TokenTally {
  tokens = 0;
  cacheWrite: CacheWrite = 'none';
  private exactChars = 0;
  private exactTokens = 0;
  /** One merge budget for the whole body (see MERGE_BUDGET_CHARS). */
  readonly budget = new MergeBudget();

  constructor(private readonly choice: TokenizerChoice) {}

  text(value: unknown): void {
    if (typeof value !== 'string' || value.length === 0) return;
    const room = EXACT_COUNT_CHAR_BUDGET - this.exactChars;
    if (room >= value.length) {
      const counted = countTextTokens(value, this.choice, this.budget);
      this.exactChars += value.length;
      this.exactTokens += counted;
      this.tokens += counted;
      return;
    }
    const head = value.slice(0, Math.max(room, 0));
    if (head.length > 0) this.text(head);
    const rest = value.length - head.length;
    const perChar = this.exactChars > 0 ? this.exactTokens / this.exactChars : 0;
    this.tokens += Math.ceil(rest * Math.max(perChar, 1 / FALLBACK_CHARS_PER_TOKEN));
  }

  json(value: unknown): void {
    if (value === undefined || value === null) return;
    this.text(typeof value === 'string' ? value : JSON.stringify(value));
  }

  add(tokens: number): void {
    this.tokens += tokens;
  }

  /** Notes `item.cache_control`: any value marks a write, `ttl: "1h"` a 1-hour one. */
  cacheControl(item: Json): void {
    const marker = item.cache_control;
    if (marker === undefined || marker === null || this.cacheWrite === '1h') return;
    this.cacheWrite = isObject(marker) && marker.ttl === '1h' ? '1h' : '5m';
  }
}

function countPart(part: unknown, tally: TokenTally): void {
  if (typeof part === 'string') return tally.text(part);
  if (!isObject(part)) return;
  tally.cacheControl(part);
  switch (part.type) {
    case 'image_url':
    case 'image':
    case 'input_image':
      return tally.add(IMAGE_TOKEN_ESTIMATE);
    case 'tool_use':
      tally.text(part.name);
      return tally.json(part.input);
    case 'tool_result':
      return countContent(part.content, tally);
    case 'document': {
      const source = isObject(part.source) ? part.source : {};
      if (source.type === 'text') tally.text(source.data);
      if (source.type === 'content') countContent(source.content, tally);
      return;
    }
    case 'thinking':
      return tally.text(part.thinking);
    default:
      return tally.text(part.text);
  }
}

function countContent(content: unknown, tally: TokenTally): void {
  if (typeof content === 'string') return tally.text(content);
  if (Array.isArray(content)) for (const part of content) countPart(part, tally);
}

function countMessage(message: unknown, tally: TokenTally): void {
  if (!isObject(message)) return;
  tally.cacheControl(message);
  tally.add(MESSAGE_OVERHEAD_TOKENS);
  tally.text(message.name);
  countContent(message.content, tally);
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      const fn = isObject(call) && isObject(call.function) ? call.function : {};
      tally.text(fn.name);
      tally.json(fn.arguments);
    }
  }
  if (isObject(message.function_call)) {
    tally.text(message.function_call.name);
    tally.json(message.function_call.arguments);
  }
}

function countEmbeddingInput(input: unknown, tally: TokenTally): void {
  if (typeof input === 'string') return tally.text(input);
  if (!Array.isArray(input)) return;
  for (const item of input) {
    if (typeof item === 'string') tally.text(item);
    else if (typeof item === 'number') tally.add(1);
    else if (Array.isArray(item)) tally.add(item.length);
    else countMessage(item, tally);
  }
}

function countBody(body: Json, tally: TokenTally): void {
  tally.cacheControl(body);
  if (typeof body.system === 'string' || Array.isArray(body.system)) countContent(body.system, tally);
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) countMessage(message, tally);
    tally.add(REPLY_PRIMING_TOKENS);
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) {
      if (isObject(tool)) tally.cacheControl(tool);
      tally.json(tool);
    }
  }
  if (Array.isArray(body.functions)) for (const fn of body.functions) tally.json(fn);
  if (isObject(body.response_format) && body.response_format.type === 'json_schema') tally.json(body.response_format);
  if (body.input !== undefined) countEmbeddingInput(body.input, tally);
  if (body.inputs !== undefined) countEmbeddingInput(body.inputs, tally);
  tally.text(body.instructions);
  if (body.prompt !== undefined) {
    countEmbeddingInput(body.prompt, tally);
    tally.text(body.suffix);
  }
}

/**
 * Input tokens of a format-A, format-B or embeddings body for the model (characters/4 if counting
 * fails), and the prompt-cache write its markers ask for (those seen before a failure).
 */
export function countInput(model: string, body: unknown): InputCount {
  if (!isObject(body)) return { tokens: 0, cacheWrite: 'none' };
  const tally = new TokenTally(tokenizerFor(model));
  try {
    countBody(body, tally);
    return { tokens: tally.tokens, cacheWrite: tally.cacheWrite };
  } catch {
    try {
      return { tokens: approximateTokens(JSON.stringify(body)), cacheWrite: tally.cacheWrite };
    } catch {
      return { tokens: tally.tokens, cacheWrite: tally.cacheWrite };
    }
  }
}

/**
 * Input tokens of texts for the model, with the tally the body count uses (the model's tokenizer,
 * one merge budget, exact up to EXACT_COUNT_CHAR_BUDGET characters and extrapolated beyond): the
 * strings of a D catch-all body without a prompt, as the PII walk extracted them (stage 2).
 */
export function countTexts(model: string, texts: readonly { text: string }[]): number {
  const tally = new TokenTally(tokenizerFor(model));
  for (const { text } of texts) tally.text(text);
  return tally.tokens;
}

function positiveTokens(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : null;
}

/**
 * The max output tokens a body names: `max_tokens`, `max_completion_tokens` or a Responses-style
 * `max_output_tokens` (the largest if a client sends several), else null.
 */
export function namedMaxOutputTokens(body: unknown): number | null {
  if (!isObject(body)) return null;
  const values = [positiveTokens(body.max_tokens), positiveTokens(body.max_completion_tokens), positiveTokens(body.max_output_tokens)].filter(
    (value): value is number => value !== null,
  );
  return values.length > 0 ? Math.max(...values) : null;
}

/** Max output tokens of a request: the max its body names (`namedMaxOutputTokens`), else DEFAULT_MAX_OUTPUT_TOKENS. */
export function maxOutputTokens(body: unknown): number {
  return namedMaxOutputTokens(body) ?? DEFAULT_MAX_OUTPUT_TOKENS;
}

/**
 * How many answers one request asks for: format A's `n` (choices; Gemini's `candidateCount` once
 * translated) or a legacy completion's `best_of` (generated server-side and billed, though only the
 * best is returned), the larger of the two; 1 without either. Each answer may reach the max output
 * tokens, so an upper-bound estimate multiplies by it.
 */
export function answerCount(body: unknown): number {
  if (!isObject(body)) return 1;
  return Math.max(1, positiveTokens(body.n) ?? 1, positiveTokens(body.best_of) ?? 1);
}

/**
 * An embeddings-like body: `input` without chat `messages` or an output limit (`max_output_tokens`
 * makes it a Responses-style generation). It produces no output tokens.
 */
export function isEmbeddingsRequest(body: unknown): boolean {
  return isObject(body) && body.input !== undefined && !Array.isArray(body.messages) && body.max_output_tokens === undefined;
}

/**
 * A body priced in tokens: a prompt to answer or embed (`messages`, `prompt`, `input`, Mistral's
 * `inputs`). What else the D catch-all carries (an array, a rerank's `query` and `documents`, a
 * batch, OCR or fine-tuning job, a GET, a file upload) stage 2 estimates from every string of the
 * body instead (`estimatePassthroughCost`).
 */
export function isTokenPricedBody(body: unknown): boolean {
  return isObject(body) && (Array.isArray(body.messages) || body.prompt !== undefined || body.input !== undefined || body.inputs !== undefined);
}
