import { createParser, EventSourceParser } from 'eventsource-parser';
import { GatewayErrorBody } from '@svc/platform';
import {
  defaultNewId,
  fromGeminiError,
  GeminiTranslationOptions,
  mapFinishReason,
  mapLogprobs,
  mapUsage,
  partsToolCalls,
  THOUGHT_CLOSE,
  THOUGHT_OPEN,
} from './gemini-response';
import {
  ChatCompletionChunk,
  ChatCompletionChunkDelta,
  GeminiGenerateContentResponse,
  GeminiPart,
  GeminiUsageMetadata,
  OpenAIChoiceLogprobs,
  OpenAIFinishReason,
  OpenAIUsage,
} from './gemini-types';
import { isJsonObject } from './types';
import { httpStatusOf, isServerStreamError } from './usage';

export interface GeminiStreamOptions extends GeminiTranslationOptions {
  /** Emit the final `choices: []` usage chunk (the client sent `stream_options.include_usage: true`). */
  includeUsage?: boolean;
}

/** What the translator emits: format-A chunks, or an error event (`data: {"error": ...}`). */
export type StreamEvent = ChatCompletionChunk | { error: GatewayErrorBody };

/** The terminating event of a format-A stream. */
export const SSE_DONE = 'data: [DONE]\n\n';

export function encodeSseEvent(event: StreamEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** Largest single SSE event accepted from the upstream, in characters. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * Turns the data objects of Gemini's `streamGenerateContent?alt=sse` into format-A
 * `chat.completion.chunk`s: a first chunk with `delta.role` per choice, content and tool-call
 * deltas, a chunk with `finish_reason`, and (when asked) a final usage chunk. State is a few
 * counters per choice; no text is retained.
 */
export class GeminiStreamTranslator {
  private id?: string;
  private model?: string;
  private readonly created: number;
  private readonly newId: (prefix: 'chatcmpl-' | 'call_') => string;
  private readonly started = new Set<number>();
  private readonly finished = new Set<number>();
  private readonly toolCallCounts = new Map<number, number>();
  /** Choices whose `<thought>` tag is open (thought summaries came, the answer has not started). */
  private readonly thinking = new Set<number>();
  private lastUsage?: GeminiUsageMetadata;
  private failed = false;
  private serverFailure = false;
  private chars = 0;

  constructor(private readonly options: GeminiStreamOptions) {
    this.created = options.created ?? Math.floor(Date.now() / 1000);
    this.newId = options.newId ?? defaultNewId;
  }

  /** Format-A usage from the latest `usageMetadata` (Gemini repeats the running totals on every chunk). */
  get usage(): OpenAIUsage | undefined {
    return mapUsage(this.lastUsage);
  }

  /** Characters of answer text (text and thought parts, tool-call arguments) translated so far. */
  get textChars(): number {
    return this.chars;
  }

  /** True once Gemini sent an error object in the stream (already emitted as an error event). */
  get errored(): boolean {
    return this.failed;
  }

  /**
   * True once an error Gemini sent in the stream stands for Gemini failing (`isServerStreamError`:
   * its `code` 500 INTERNAL, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED, not 400, 403 or 429): its 5xx
   * sent after the 200, which counts against its breaker once per stream.
   */
  get serverError(): boolean {
    return this.serverFailure;
  }

  /** True once every choice has finished and no error arrived. */
  get completed(): boolean {
    return !this.failed && this.started.size > 0 && [...this.started].every((i) => this.finished.has(i));
  }

  /** Translates one Gemini SSE data object. */
  push(data: unknown): StreamEvent[] {
    if (isJsonObject(data) && isJsonObject(data.error)) {
      this.failed = true;
      if (isServerStreamError(data.error)) this.serverFailure = true;
      const status = httpStatusOf(data.error.code) ?? 500;
      return [...this.closeThoughts(), fromGeminiError(status, data).body];
    }
    if (!isJsonObject(data)) return [];
    const response = data as GeminiGenerateContentResponse;
    this.id ??= response.responseId ? `chatcmpl-${response.responseId}` : this.newId('chatcmpl-');
    this.model ??= response.modelVersion ?? this.options.model;
    if (response.usageMetadata) this.lastUsage = response.usageMetadata;
    const events: StreamEvent[] = [];
    const candidates = response.candidates ?? [];
    const blockReason = response.promptFeedback?.blockReason;
    if (!candidates.length && blockReason) {
      this.start(0, events);
      this.finish(0, 'content_filter', blockReason, events);
    }
    candidates.forEach((candidate, position) => {
      const index = typeof candidate.index === 'number' ? candidate.index : position;
      if (this.finished.has(index)) return;
      this.start(index, events);
      const parts = candidate.content?.parts ?? [];
      const text = this.content(index, parts);
      // Gemini sends each chunk's token logprobs with it; they ride on that chunk's content delta.
      const logprobs = mapLogprobs(candidate.logprobsResult);
      if (text || logprobs?.content.length) events.push(this.chunk(index, text ? { content: text } : {}, null, logprobs));
      const calls = partsToolCalls(parts, this.newId);
      for (const call of calls) this.chars += call.function.arguments.length;
      if (calls.length) {
        const offset = this.toolCallCounts.get(index) ?? 0;
        this.toolCallCounts.set(index, offset + calls.length);
        events.push(this.chunk(index, { tool_calls: calls.map((call, k) => ({ index: offset + k, ...call })) }, null));
      }
      const reason = mapFinishReason(candidate.finishReason, (this.toolCallCounts.get(index) ?? 0) > 0);
      if (reason) this.finish(index, reason, candidate.finishReason as string, events);
    });
    return events;
  }

  /** The closing events once the upstream ended: the usage chunk, if asked for and known. */
  end(): StreamEvent[] {
    const usage = this.usage;
    if (!this.options.includeUsage || !usage || this.failed) return [];
    return [{ ...this.base(), choices: [], usage }];
  }

  /**
   * A chunk closing each open `<thought>` tag, for a stream that stops (an error, an early end) while
   * a thought summary streams: the client gets the closing tag before the error event.
   */
  closeThoughts(): StreamEvent[] {
    const events = [...this.thinking].map((index) => this.chunk(index, { content: THOUGHT_CLOSE }, null));
    this.thinking.clear();
    return events;
  }

  private start(index: number, events: StreamEvent[]): void {
    if (this.started.has(index)) return;
    this.started.add(index);
    events.push(this.chunk(index, { role: 'assistant', content: '' }, null));
  }

  /**
   * Text and thought parts in order, as Google's OpenAI-compatible endpoint streams them: thought
   * summaries open a `<thought>` tag that the first answer part (or function call, or the finish) closes.
   */
  private content(index: number, parts: readonly GeminiPart[]): string {
    let out = '';
    for (const part of parts) {
      const text = typeof part.text === 'string' ? part.text : undefined;
      if (text !== undefined) this.chars += text.length;
      if (text !== undefined && part.thought) {
        if (!this.thinking.has(index)) out += THOUGHT_OPEN;
        this.thinking.add(index);
        out += text;
      } else if (text !== undefined || part.functionCall) {
        if (this.thinking.delete(index)) out += THOUGHT_CLOSE;
        out += text ?? '';
      }
    }
    return out;
  }

  private finish(index: number, reason: OpenAIFinishReason, native: string, events: StreamEvent[]): void {
    if (this.thinking.delete(index)) events.push(this.chunk(index, { content: THOUGHT_CLOSE }, null));
    this.finished.add(index);
    const chunk = this.chunk(index, {}, reason);
    chunk.choices[0].native_finish_reason = native;
    events.push(chunk);
  }

  private base(): Omit<ChatCompletionChunk, 'choices'> {
    return {
      id: this.id ?? (this.id = this.newId('chatcmpl-')),
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model ?? this.options.model,
    };
  }

  private chunk(index: number, delta: ChatCompletionChunkDelta, finishReason: OpenAIFinishReason | null, logprobs: OpenAIChoiceLogprobs | null = null): ChatCompletionChunk {
    const chunk: ChatCompletionChunk = { ...this.base(), choices: [{ index, delta, finish_reason: finishReason, logprobs }] };
    if (this.options.includeUsage) chunk.usage = null;
    return chunk;
  }
}

/**
 * Byte-level wrapper: feed the upstream body as it arrives, write what comes back to the client.
 * Ends with the usage chunk and `data: [DONE]` when Gemini finished every choice; a stream that
 * stops early ends with an error event instead, so clients do not mistake it for a full answer.
 */
export class GeminiSseTranslator {
  readonly translator: GeminiStreamTranslator;
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private output = '';
  private broken = false;

  /** Whether Gemini sent a server-side error in the stream (`GeminiStreamTranslator.serverError`). */
  get serverError(): boolean {
    return this.translator.serverError;
  }

  constructor(options: GeminiStreamOptions) {
    this.translator = new GeminiStreamTranslator(options);
    this.parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (event) => {
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          return;
        }
        for (const out of this.translator.push(data)) this.output += encodeSseEvent(out);
      },
      // Unknown fields and bad retry values are ignorable; only an oversized event ends parsing.
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.broken = true;
      },
    });
  }

  /** Translated SSE text for this piece of the upstream body (possibly empty). */
  feed(chunk: Uint8Array | string): string {
    if (!this.broken) this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
    return this.take();
  }

  /** The closing SSE text once the upstream body ended. */
  end(): string {
    if (!this.broken) {
      const rest = this.decoder.decode();
      if (rest) this.parser.feed(rest);
      // A last event without its closing blank line still counts (lenient, like most SSE clients).
      this.parser.feed('\n\n');
    }
    if (this.translator.completed) {
      for (const out of this.translator.end()) this.output += encodeSseEvent(out);
      this.output += SSE_DONE;
    } else if (!this.translator.errored) {
      this.closeThoughts();
      this.output += encodeSseEvent({
        error: {
          message: 'The upstream stream ended before the response was complete',
          type: 'api_error',
          param: null,
          code: 'upstream_stream_incomplete',
        },
      });
    }
    return this.take();
  }

  /**
   * What goes before the error event of a stream that broke (connection lost, deadline, a chunk
   * that could not be translated): the closing `</thought>` of a thought summary left open.
   */
  fail(): string {
    this.closeThoughts();
    return this.take();
  }

  private closeThoughts(): void {
    for (const out of this.translator.closeThoughts()) this.output += encodeSseEvent(out);
  }

  private take(): string {
    const out = this.output;
    this.output = '';
    return out;
  }
}
