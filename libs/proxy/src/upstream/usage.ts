import { createParser, EventSourceMessage, EventSourceParser } from 'eventsource-parser';
import { ProviderFormat } from '../providers/types';
import { mapUsage } from './gemini-response';
import { GeminiUsageMetadata } from './gemini-types';
import { isJsonObject, JsonObject } from './types';

/**
 * Token usage of one upstream call, the same for every format.
 * `inputTokens` counts every prompt token, cached ones included (format A's `prompt_tokens`;
 * for B the sum of `input_tokens`, `cache_read_input_tokens` and `cache_creation_input_tokens`).
 * `outputTokens` includes reasoning tokens.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Prompt tokens served from the provider's cache (priced lower). */
  cachedInputTokens: number;
  /** B: prompt tokens written to the cache (priced higher), both lifetimes. */
  cacheCreationInputTokens: number;
  /** B: the part of `cacheCreationInputTokens` written to the 1-hour cache (priced higher still). */
  cacheCreation1hInputTokens: number;
  reasoningTokens: number;
  /** A: the audio part of `inputTokens` (`prompt_tokens_details.audio_tokens`), priced as audio. */
  audioInputTokens?: number;
  /** A: the audio part of `outputTokens` (`completion_tokens_details.audio_tokens`), priced as audio. */
  audioOutputTokens?: number;
  /** B: uses of server tools by counter (`server_tool_use`: `web_search_requests`, ...), priced per use. */
  serverToolUses?: Readonly<Record<string, number>>;
}

const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);
const obj = (v: unknown): JsonObject => (isJsonObject(v) ? v : {});

function usage(input: number, output: number, extra: Partial<TokenUsage> = {}, total?: number): TokenUsage {
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: total || input + output,
    cachedInputTokens: extra.cachedInputTokens ?? 0,
    cacheCreationInputTokens: extra.cacheCreationInputTokens ?? 0,
    cacheCreation1hInputTokens: extra.cacheCreation1hInputTokens ?? 0,
    reasoningTokens: extra.reasoningTokens ?? 0,
    audioInputTokens: extra.audioInputTokens || undefined,
    audioOutputTokens: extra.audioOutputTokens || undefined,
    serverToolUses: extra.serverToolUses,
  };
}

/**
 * Format-A `usage` (chat completions, embeddings, a stream's last chunk); Groq's `x_groq.usage` too;
 * and the Responses-style shape a D provider's catch-all may answer with (`input_tokens`,
 * `output_tokens`, their `_details`). Undefined for an object with neither (Whisper's `{type:
 * 'duration', seconds}`): not a token usage. Reasoning is output, counted once (`answerTokens`).
 */
export function fromOpenAIUsage(raw: unknown): TokenUsage | undefined {
  if (!isJsonObject(raw)) return undefined;
  if (raw.prompt_tokens === undefined && raw.completion_tokens === undefined) return fromResponsesUsage(raw);
  const prompt = obj(raw.prompt_tokens_details);
  const completion = obj(raw.completion_tokens_details);
  const cached = int(prompt.cached_tokens) || int(raw.prompt_cache_hit_tokens);
  const [reasoning, total] = [int(completion.reasoning_tokens), int(raw.total_tokens)];
  return usage(
    int(raw.prompt_tokens),
    answerTokens(int(raw.prompt_tokens), int(raw.completion_tokens), reasoning, total),
    { cachedInputTokens: cached, reasoningTokens: reasoning, audioInputTokens: int(prompt.audio_tokens), audioOutputTokens: int(completion.audio_tokens) },
    total,
  );
}

function fromResponsesUsage(raw: JsonObject): TokenUsage | undefined {
  if (raw.input_tokens === undefined && raw.output_tokens === undefined) return undefined;
  const input = obj(raw.input_tokens_details);
  const [reasoning, total] = [int(obj(raw.output_tokens_details).reasoning_tokens), int(raw.total_tokens)];
  return usage(
    int(raw.input_tokens),
    answerTokens(int(raw.input_tokens), int(raw.output_tokens), reasoning, total),
    { cachedInputTokens: int(input.cached_tokens), reasoningTokens: reasoning, audioInputTokens: int(input.audio_tokens) },
    total,
  );
}

/**
 * Output tokens billed: `output` + `reasoning` when the total counts the reasoning beside the output
 * (xAI: total = prompt + completion + reasoning), else `output` (OpenAI's: reasoning inside it).
 */
function answerTokens(input: number, output: number, reasoning: number, total: number): number {
  return reasoning > 0 && total === input + output + reasoning ? output + reasoning : output;
}

/**
 * Format-B `usage` (a message, `message_start.message.usage`, `message_delta.usage`). The cache
 * writes' split by lifetime (`cache_creation.ephemeral_1h_input_tokens`) is read when present.
 */
export function fromAnthropicUsage(raw: unknown): TokenUsage | undefined {
  if (!isJsonObject(raw)) return undefined;
  const cacheRead = int(raw.cache_read_input_tokens);
  const cacheWrite = int(raw.cache_creation_input_tokens);
  return usage(int(raw.input_tokens) + cacheRead + cacheWrite, int(raw.output_tokens), {
    cachedInputTokens: cacheRead,
    cacheCreationInputTokens: cacheWrite,
    cacheCreation1hInputTokens: Math.min(cacheWrite, int(obj(raw.cache_creation).ephemeral_1h_input_tokens)),
    serverToolUses: toolUses(raw.server_tool_use),
  });
}

/** B's `server_tool_use` counters that are positive counts; undefined when there are none. */
function toolUses(raw: unknown): Record<string, number> | undefined {
  if (!isJsonObject(raw)) return undefined;
  let uses: Record<string, number> | undefined;
  for (const [counter, value] of Object.entries(raw)) {
    const count = int(value);
    if (count > 0) (uses ??= {})[counter] = count;
  }
  return uses;
}

/** Gemini's native `usageMetadata`. */
export function fromGeminiUsage(raw: unknown): TokenUsage | undefined {
  return isJsonObject(raw) ? fromOpenAIUsage(mapUsage(raw as GeminiUsageMetadata)) : undefined;
}

/**
 * Usage of a non-streaming response body in the upstream's format (a translated C response is
 * format A: pass `openai`). Undefined when the body carries none.
 */
export function extractUsage(format: ProviderFormat, body: unknown): TokenUsage | undefined {
  if (!isJsonObject(body)) return undefined;
  if (format === 'anthropic') return fromAnthropicUsage(body.usage);
  if (format === 'gemini') return fromGeminiUsage(body.usageMetadata);
  return fromOpenAIUsage(body.usage) ?? fromOpenAIUsage(obj(body.x_groq).usage);
}

const USAGE_OBJECT = /"usage"\s*:\s*\{/;
const ERROR_OBJECT = /"error"\s*:\s*\{/;
/**
 * The string values of an event that carry answer text: format A's `content`, tool-call
 * `arguments`, reasoning, refusals and any string `delta` (a Responses-style stream's own events
 * are measured by `openAITextChars`); format B's `text`, `partial_json` and `thinking` deltas
 * (Gemini's `text` parts too). Read without parsing the event (most events of a stream are these).
 */
const A_TEXT = /"(?:content|arguments|reasoning_content|reasoning|refusal|delta)"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"/g;
const B_TEXT = /"(?:text|partial_json|thinking)"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"/g;
/** The string `delta` of a Responses-style `*.delta` event (text, refusal, reasoning, tool-call arguments). */
const DELTA_TEXT = /"delta"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"/g;
/** A Responses-style event's `type` in its data (nested items' types never start with `response.`). */
const RESPONSES_TYPE = /"type"\s*:\s*"(response\.[^"\\]*)"/;
/** A Responses-style `error` event's data (`{"type":"error","code":...,"message":...}`): `type` comes first. */
const RESPONSES_ERROR = /^\s*\{\s*"type"\s*:\s*"error"\s*[,}]/;
/** Responses-style terminal events (such a stream sends no `[DONE]`): the end it documents, or its failure. */
const RESPONSES_END = new Set(['response.completed', 'response.incomplete']);
const RESPONSES_FAILURE = new Set(['response.failed', 'error']);
/** Names of an in-stream error that stand for the provider failing (a 5xx sent after the 200). */
const SERVER_ERRORS = new Set(['server_error', 'api_error', 'overloaded_error', 'service_unavailable', 'timeout_error']);

/** A status sent as a string (`"503"`), as some providers do. */
const STATUS_STRING = /^\d{3}$/;

/** An error object's `code` as an HTTP status: a number, or three digits in a string (`"503"`, as some servers send it). */
export function httpStatusOf(code: unknown): number | undefined {
  if (typeof code === 'number') return code;
  return typeof code === 'string' && STATUS_STRING.test(code) ? Number(code) : undefined;
}

/**
 * Whether an in-stream error stands for the provider failing (its 500, 503, 529 or 504 sent once
 * the stream began) rather than for the request (invalid, rate-limited, filtered, too long): its
 * `code`, a name or a 5xx status (a number, or its digits in a string) as some D providers and
 * Gemini send, or without one its `type`. One rule for B's `error`, an A/D error chunk's `error`,
 * a Responses-style stream's failure and Gemini's in-stream `error` (its `code` is the status).
 */
export function isServerStreamError(error: unknown): boolean {
  if (!isJsonObject(error)) return false;
  const code = httpStatusOf(error.code) ?? error.code;
  if (typeof code === 'number') return code >= 500 && code < 600;
  const name = typeof code === 'string' && code !== '' ? code : error.type;
  return typeof name === 'string' && SERVER_ERRORS.has(name);
}

/** Characters of the matched JSON strings (escaped as sent: an estimate, like the tokens made of it). */
export function answerTextChars(data: string, pattern: RegExp = A_TEXT): number {
  pattern.lastIndex = 0;
  let chars = 0;
  for (let match = pattern.exec(data); match; match = pattern.exec(data)) chars += match[1].length;
  return chars;
}

/**
 * The type of a Responses-style event (`response.*`, or its `error` event), named by the SSE
 * `event:` field or the data's `type`; undefined for a chat-completions chunk.
 */
function responsesType(name: string | undefined, data: string): string | undefined {
  if (name !== undefined && (name.startsWith('response.') || name === 'error')) return name;
  return RESPONSES_TYPE.exec(data)?.[1] ?? (RESPONSES_ERROR.test(data) ? 'error' : undefined);
}

/**
 * Answer-text characters of one format A/D event (`type`: its `responsesType`). A Responses-style
 * stream sends every piece of text in `*.delta` events and then whole again (`*.done`,
 * `response.content_part.done`, `response.output_item.done`, `response.completed`): only its deltas
 * count, so each piece is counted once.
 */
function openAITextChars(type: string | undefined, data: string): number {
  if (type === undefined) return answerTextChars(data, A_TEXT);
  return type.endsWith('.delta') && !AUDIO_DELTA.test(type) ? answerTextChars(data, DELTA_TEXT) : 0;
}

/** A Responses-style delta of audio (base64 bytes, no text): its transcript comes in `*.audio_transcript.delta` / `*.output_audio_transcript.delta`. */
const AUDIO_DELTA = /^response\.(?:output_)?audio\.delta$/;

/** Largest single SSE event the tracker buffers, in characters; a larger one stops tracking. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * Watches an SSE response as it is relayed, without keeping it: feed the raw bytes, read `usage`,
 * `usageFinal`, `completed` and `textChars` at the end. Format A/D: usage from the final chunk
 * (`include_usage`), completion on `data: [DONE]`, failure on an `{"error": {...}}` chunk; a
 * Responses-style stream (the D catch-all): usage and completion from `response.completed` or
 * `response.incomplete`, failure on `response.failed` or `event: error`. Format B: input from
 * `message_start`, output from `message_delta` (cumulative), completion on `message_stop`. Gemini
 * (untranslated): the latest `usageMetadata`, completion on a `finishReason`. Only events that can
 * carry usage are parsed; the others are scanned for the length of their answer text (what a stream
 * that ends without its usage is charged by).
 */
export class SseUsageTracker {
  private readonly parser: EventSourceParser;
  private readonly decoder = new TextDecoder();
  private current?: TokenUsage;
  private done = false;
  private failed = false;
  private broken = false;
  /** B: the message's usage counters so far (`message_start`, then each `message_delta` merged in). */
  private anthropicUsage?: JsonObject;
  private streamErrorType?: string;
  private serverFailure = false;
  private chars = 0;

  constructor(readonly format: ProviderFormat) {
    this.parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (event) => this.onEvent(event),
      // Unknown fields and bad retry values are ignorable; only an oversized event ends parsing.
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.broken = true;
      },
    });
  }

  /** The usage seen so far (final once the stream completed). */
  get usage(): TokenUsage | undefined {
    return this.current;
  }

  /**
   * Whether the stream reached its documented end (`[DONE]`, `response.completed` or
   * `response.incomplete`, `message_stop`, a finish reason) and no error came.
   */
  get completed(): boolean {
    return this.done && !this.failed;
  }

  /** Whether an error event arrived in the stream (A's error chunk, `response.failed` or `error` of a Responses-style stream, B's `error`). */
  get errored(): boolean {
    return this.failed;
  }

  /** B: `error.type` of an `event: error` in the stream (`overloaded_error`, `api_error`, ...). */
  get errorType(): string | undefined {
    return this.streamErrorType;
  }

  /**
   * Whether an error in the stream (format A, B or D, not Gemini's) stands for the provider failing
   * (`isServerStreamError`): the provider's 5xx sent after the 200, which counts against its breaker.
   */
  get serverError(): boolean {
    return this.serverFailure;
  }

  /**
   * Whether `usage` is the provider's final account of the request: format A/D send usage once, at
   * the end; B and Gemini send running counts (B's `message_start` has input and 1 output token),
   * final only once the stream completed.
   */
  get usageFinal(): boolean {
    if (!this.current || this.failed) return false;
    return this.format === 'openai' || this.done;
  }

  /** Characters of answer text (content, tool-call arguments, reasoning) the stream carried so far. */
  get textChars(): number {
    return this.chars;
  }

  feed(chunk: Uint8Array | string): void {
    if (this.broken) return;
    this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
  }

  /** Flushes a last event that had no trailing blank line. */
  end(): void {
    if (this.broken) return;
    const rest = this.decoder.decode();
    if (rest) this.parser.feed(rest);
    // A last event without its closing blank line still counts (lenient, like most SSE clients).
    this.parser.feed('\n\n');
  }

  private onEvent(event: EventSourceMessage): void {
    const data = event.data;
    if (this.format === 'anthropic') return this.onAnthropicEvent(event.event, data);
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    if (this.format === 'gemini') {
      this.chars += answerTextChars(data, B_TEXT);
      if (!data.includes('"usageMetadata"') && !data.includes('"finishReason"') && !ERROR_OBJECT.test(data)) return;
      const parsed = parse(data);
      if (isJsonObject(parsed.error)) this.onError(parsed.error);
      this.current = fromGeminiUsage(parsed.usageMetadata) ?? this.current;
      const candidates = Array.isArray(parsed.candidates) ? parsed.candidates : [];
      if (candidates.some((c) => isJsonObject(c) && typeof c.finishReason === 'string')) this.done = true;
      return;
    }
    const responses = responsesType(event.event, data);
    this.chars += openAITextChars(responses, data);
    // A Responses-style stream ends with one of its terminal events instead of `[DONE]`.
    if (responses !== undefined && RESPONSES_END.has(responses)) this.done = true;
    const failure = responses !== undefined && RESPONSES_FAILURE.has(responses);
    // Most chunks carry `"usage":null` (include_usage) or nothing: only an object is worth parsing.
    if (!failure && !USAGE_OBJECT.test(data) && !ERROR_OBJECT.test(data)) return;
    const parsed = parse(data);
    // The error (each of these marks the stream failed): an error chunk's `error`, a Responses-style
    // `event: error`'s data itself, or the failed response's `error`.
    if (isJsonObject(parsed.error)) this.onError(parsed.error);
    else if (responses === 'error') this.onError(parsed);
    else if (responses === 'response.failed') this.onError(obj(parsed.response).error);
    // A Responses-style stream (the D catch-all) reports usage in its terminal event's `response`.
    this.current = fromOpenAIUsage(parsed.usage) ?? fromOpenAIUsage(obj(parsed.x_groq).usage) ?? fromOpenAIUsage(obj(parsed.response).usage) ?? this.current;
  }

  private onAnthropicEvent(name: string | undefined, data: string): void {
    // The frequent content_block_* events never carry usage: only their text is measured, unparsed.
    if (name === 'content_block_delta' || (name === undefined && data.includes('"content_block_delta"'))) {
      this.chars += answerTextChars(data, B_TEXT);
      return;
    }
    if (name !== undefined && !['message_start', 'message_delta', 'message_stop', 'error'].includes(name)) return;
    const parsed = parse(data);
    const type = parsed.type ?? name;
    if (type === 'message_start') {
      this.anthropicUsage = obj(obj(parsed.message).usage);
      this.current = fromAnthropicUsage(this.anthropicUsage);
    } else if (type === 'message_delta' && isJsonObject(parsed.usage)) {
      // Every message_delta carries the message's running totals (server tools may send several):
      // merged into what came before, never added; a field it omits keeps its earlier value.
      this.anthropicUsage = mergeCumulative(this.anthropicUsage ?? {}, parsed.usage);
      this.current = fromAnthropicUsage(this.anthropicUsage);
    } else if (type === 'message_stop') {
      this.done = true;
    } else if (type === 'error') {
      const error = obj(parsed.error);
      this.streamErrorType = typeof error.type === 'string' ? error.type : 'api_error';
      this.onError({ ...error, type: this.streamErrorType });
    }
  }

  private onError(error: unknown): void {
    this.failed = true;
    if (isServerStreamError(error)) this.serverFailure = true;
  }
}

export function createSseUsageTracker(format: ProviderFormat): SseUsageTracker {
  return new SseUsageTracker(format);
}

function parse(data: string): JsonObject {
  try {
    return obj(JSON.parse(data));
  } catch {
    return {};
  }
}

/**
 * `next`'s running totals over `previous`: counters are cumulative, so a count never goes down (an
 * upstream that sends 0 or null for a field it does not track loses nothing); nested counters
 * (`cache_creation`, `server_tool_use`) the same way; other values are replaced.
 */
function mergeCumulative(previous: JsonObject, next: JsonObject): JsonObject {
  const merged: JsonObject = { ...previous };
  for (const [key, value] of Object.entries(next)) {
    const before = previous[key];
    if (value === null || value === undefined) continue;
    if (typeof value === 'number' && typeof before === 'number') merged[key] = Math.max(before, value);
    else if (isJsonObject(value) && isJsonObject(before)) merged[key] = mergeCumulative(before, value);
    else merged[key] = value;
  }
  return merged;
}
