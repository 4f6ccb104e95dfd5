/**
 * Public types of the mock upstream provider: options, behaviours, the request record and the handle
 * returned by `startMockProvider`.
 */

/** Which wire format answered a request (drives the error format of injected failures). */
export type WireFormat = 'openai' | 'anthropic' | 'gemini' | 'ollama' | 'echo';

/** The concrete route a request was dispatched to. */
export type RouteKind =
  | 'openai.chat'
  | 'openai.embeddings'
  | 'openai.models'
  | 'openai.model'
  | 'anthropic.messages'
  | 'anthropic.count_tokens'
  | 'anthropic.models'
  | 'gemini.generate'
  | 'gemini.stream'
  | 'gemini.embed'
  | 'gemini.models'
  | 'ollama.tags'
  | 'openai.binary'
  | 'echo';

export interface MockProviderOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** Record every received request (default true). Turn off for benchmarks. */
  record?: boolean;
  /** Cap of the request record; the oldest entries are dropped beyond it (default 1000). */
  maxRecords?: number;
  /** When set, only these keys are accepted; otherwise any non-empty key not starting with `invalid` is. */
  validKeys?: string[];
  /** Check provider credentials at all (default true). */
  requireAuth?: boolean;
  /** Model ids listed by the models routes (OpenAI, Anthropic, Gemini and Ollama formats). */
  models?: string[];
}

/** Runtime settings changeable after start (programmatically or with `POST /__mock/config`). */
export interface MockConfig {
  record?: boolean;
  maxRecords?: number;
  validKeys?: string[] | null;
  requireAuth?: boolean;
}

/** Restricts a behaviour rule to some requests. Every given field must match. */
export interface BehaviorMatch {
  /** Substring of the request path (without query), or a RegExp when used programmatically. */
  path?: string | RegExp;
  /** Regular expression source matched against the path (for the HTTP control route). */
  pathRegex?: string;
  /** Wire format of the route the request was dispatched to. */
  format?: WireFormat;
  /** Route kind, e.g. `openai.chat`. */
  route?: RouteKind;
  /** HTTP method, case-insensitive. */
  method?: string;
}

export interface FailureBehavior {
  /** HTTP status to answer with, e.g. 429, 500, 503, 529. */
  status: number;
  /** How many matching requests fail (default 1); a negative number means every one until changed. */
  times?: number;
  /** Response body; default: an error body in the route's provider format for `status`. */
  body?: unknown;
  /** Error message used in the default body. */
  message?: string;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  headers?: Record<string, string>;
  /**
   * Announce the whole body's `content-length`, write only its first half, then cut the connection:
   * a provider that fails in the middle of a non-streamed answer.
   */
  truncate?: boolean;
}

export interface CountedBehavior {
  /** How many matching requests are affected (default 1); negative = every one until changed. */
  times?: number;
}

export interface AbortBehavior extends CountedBehavior {
  /** Stream events (SSE events / JSON-array elements) written before the socket is destroyed. */
  afterChunks: number;
}

/**
 * An error event inside a B stream that started with 200, as the Messages API sends one
 * (`event: error`, `{type: 'error', error: {type, message}}`), after which the stream ends.
 */
export interface StreamErrorBehavior extends CountedBehavior {
  /** Events written before the error event (default 1: after `message_start`). */
  afterChunks?: number;
  /** `error.type` (default `overloaded_error`). */
  type?: string;
  /** `error.message` (default `Overloaded`). */
  message?: string;
}

/**
 * One behaviour rule. `setBehavior` takes one rule or a list; for each request the first rule whose
 * `match` fits applies (a rule without `match` fits every request).
 */
export interface MockBehavior {
  match?: BehaviorMatch;
  /** Delay before the first byte of the response (headers included), in ms. */
  latencyMs?: number;
  /** Answer the next N matching requests with an error status. */
  fail?: FailureBehavior;
  /** Destroy the socket of the next N matching requests without any response. */
  drop?: CountedBehavior;
  /** Destroy the socket of the next N matching streaming responses after K events. */
  abort?: AbortBehavior;
  /** End the next N matching B streams with an in-stream error event after K events. */
  streamError?: StreamErrorBehavior;
  /** Delay between stream events, in ms (slow drip). */
  chunkDelayMs?: number;
  /** Fixed reply text instead of the derived `mock reply to: ...`. */
  reply?: string;
  /**
   * Extra headers on every answer of matching requests (whole, streamed, or an injected failure),
   * written after the mock's own so they replace them: a provider's vendor headers, or names that
   * collide with the gateway's.
   */
  headers?: Record<string, string>;
}

export interface GeminiRequestSummary {
  model: string;
  stream: boolean;
  /** Concatenated text of `systemInstruction.parts`, if present. */
  systemInstruction?: string;
  /** `role` of each entry of `contents` in order (`user` when absent). */
  roles: string[];
  generationConfig?: Record<string, unknown>;
  tools?: unknown[];
  toolConfig?: unknown;
  safetySettings?: unknown[];
}

export interface RecordedRequest {
  /** Sequence number, starting at 1, never reused until `reset()`. */
  seq: number;
  /** Arrival time, epoch ms. */
  time: number;
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  route: RouteKind;
  format: WireFormat;
  /** Model named by the request (body `model` or the Gemini path). */
  model?: string;
  stream?: boolean;
  /** What the Gemini routes saw, for asserting the gateway's translation. */
  gemini?: GeminiRequestSummary;
  /**
   * Epoch ms when the client (the gateway) closed the connection before the response was complete;
   * absent while the exchange runs, when the response completed, and when the mock cut it itself
   * (`drop`, `abort`).
   */
  clientClosedAt?: number;
}

export interface MockProvider {
  /** Base address, e.g. `http://127.0.0.1:9100` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** The live request record (oldest first). */
  readonly requests: RecordedRequest[];
  /** Replace the behaviour rules; `null` or `[]` restores normal answers. */
  setBehavior(behavior: MockBehavior | MockBehavior[] | null): void;
  /** Current rules with their remaining counters. */
  getBehavior(): MockBehavior[];
  /** Change recording / credential settings at runtime (throws on invalid values). */
  configure(config: MockConfig): void;
  getConfig(): Required<MockConfig>;
  /** Requests received since start or the last `reset()` (recorded or not). */
  readonly totalRequests: number;
  clearRequests(): void;
  /** Clear the record, the behaviours and the configuration changes. */
  reset(): void;
  close(): Promise<void>;
}
