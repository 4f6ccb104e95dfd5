/**
 * Deterministic content so tests can predict replies and token counts:
 * - reply text: `mock reply to: ` + the first 40 characters of the last user message;
 * - tokens: `ceil(characters / 4)` (0 for empty text); prompt tokens count every text piece of the
 *   prompt (system + all messages), completion tokens count the reply;
 * - a max-tokens limit cuts the reply to `limit * 4` characters and reports a length stop;
 * - streams send the reply split after each run of whitespace (`mock `, `reply `, `to: `, ...).
 */

export const REPLY_PREFIX = 'mock reply to: ';
export const REPLY_SOURCE_CHARS = 40;

export const DEFAULT_MODELS = [
  'gpt-4o',
  'gpt-4o-mini',
  'text-embedding-3-small',
  'claude-sonnet-4-5',
  'claude-3-5-haiku-latest',
  'gemini-2.0-flash',
  'gemini-2.5-pro',
  'mistral-small-latest',
  'llama3.2:latest',
];

export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The reply the mock gives to `lastUserText`. */
export function mockReply(lastUserText: string): string {
  return REPLY_PREFIX + lastUserText.slice(0, REPLY_SOURCE_CHARS);
}

export interface Completion {
  text: string;
  promptTokens: number;
  completionTokens: number;
  /** True when a max-tokens limit cut the reply. */
  truncated: boolean;
}

/** Builds the reply for a prompt (`promptChars` = total text length) and an optional output limit. */
export function complete(
  lastUserText: string,
  promptChars: number,
  maxTokens: unknown,
  override?: string,
): Completion {
  let text = override ?? mockReply(lastUserText);
  let truncated = false;
  if (typeof maxTokens === 'number' && maxTokens >= 0 && countTokens(text) > maxTokens) {
    text = text.slice(0, Math.floor(maxTokens) * 4);
    truncated = true;
  }
  return { text, promptTokens: Math.ceil(promptChars / 4), completionTokens: countTokens(text), truncated };
}

/** Splits text into stream pieces: each word with its trailing whitespace. Joining gives the text back. */
export function splitChunks(text: string): string[] {
  if (text.length === 0) return [];
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

/** Text of a message content: a string, or an array of parts / blocks with `text` fields. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) {
    if (typeof part === 'string') out += part;
    else if (isRecord(part) && typeof part['text'] === 'string') out += part['text'];
  }
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** 32-bit FNV-1a hash. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A unit-length vector derived from the text (same text, same vector). */
export function embedText(text: string, dimensions: number): number[] {
  let state = hash(text) || 1;
  const values: number[] = [];
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const v = ((state >>> 0) / 0xffffffff) * 2 - 1;
    values.push(v);
    norm += v * v;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 1;
  return values.map((v) => Math.fround(v * scale));
}

/** Little-endian float32 base64, as OpenAI's `encoding_format: 'base64'`. */
export function toBase64Floats(values: number[]): string {
  return Buffer.from(new Float32Array(values).buffer).toString('base64');
}
