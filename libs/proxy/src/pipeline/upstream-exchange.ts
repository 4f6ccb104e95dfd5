import { isScrubbable, scrubSecrets, secretForms } from '@svc/platform';
import { BreakerCall, outcomeOf, ProviderBreaker } from '../breaker/provider-breaker';
import type { ProviderDefinition, ProviderFormat } from '../providers';
import {
  createSseUsageTracker,
  extractUsage,
  forwardResponseHeaders,
  GeminiSseTranslator,
  PreparedUpstreamRequest,
  TokenUsage,
  translateGeminiAnswer,
} from '../upstream';
import type { ProxyReply } from '../http/proxy-io';
import { BufferedUpstreamResponse, ClientAbortedError, ExchangeAbort, OpenedUpstream, readWhole, UpstreamClient } from '../transport/upstream-client';
import { upstreamError, upstreamRedirect } from './upstream-errors';

export interface ExchangeResult {
  status: number;
  /** The provider's usage: its final account when `usageFinal`, else what a stream carried so far (B, C). */
  usage: TokenUsage | undefined;
  /** `usage` is the provider's final account of the request (a whole answer's, a stream's last). */
  usageFinal: boolean;
  /** The answer was relayed as an SSE stream (the client got a 200 and its events, whatever followed). */
  streamed: boolean;
  /** Characters of answer text a stream carried (content, tool-call arguments, reasoning); 0 for whole answers. */
  textChars: number;
  /** Milliseconds until the provider's response headers arrived. */
  upstreamLatencyMs: number | null;
  /** The body sent to the client, when it was buffered (non-streaming) and `keepBody` asked for it, with the provider's headers it carried. */
  bufferedBody?: { text: string; contentType: string; headers: Record<string, string> };
  /** The client went away before the end. */
  aborted: boolean;
  /** Bytes of the answer relayed to the client (prices an answer whose usage never came). */
  bytesRelayed: number;
}

export interface ExchangeInput {
  provider: ProviderDefinition;
  /**
   * The wire format of the provider's answer (its usage, stream events, the error event ending a
   * broken stream): not always `provider.format`, since a B model on the chat route answers in format A.
   */
  format: ProviderFormat;
  request: PreparedUpstreamRequest;
  breaker: ProviderBreaker;
  client: UpstreamClient;
  /** Already carries the gateway's headers (request id, governance); the provider's are added below them. */
  reply: ProxyReply;
  /** Translate a chat answer from the provider's own format to format A (provider C). */
  translate: boolean;
  /** The model name to report in translated answers (what the client asked for). */
  model: string;
  /** The client asked for the final usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  /** Return a buffered JSON answer as text in `bufferedBody` (an Idempotency-Key's replay). */
  keepBody?: boolean;
  /**
   * Called when the exchange fails (rejects) after the request was handed to the provider, which
   * answered nothing the gateway could relay and no error or redirect of its own: the client left,
   * a deadline passed, or the connection broke. The provider has the prompt (chargeOf).
   */
  onLostAfterDispatch?: () => void;
  /** Awaited with the provider's status before its answer (whole, or a stream's 200) is relayed: a consumed approval kept or given back first. */
  beforeRelay?: (status: number) => Promise<void>;
}

/**
 * Sends the request through the provider's breaker and relays the answer, streaming or not. The
 * breaker judges the call by the whole answer: a whole answer once read, a stream once it ended
 * (a half-open breaker's probe that streams is still in flight, and others refused, until then).
 */
export async function exchange(input: ExchangeInput): Promise<ExchangeResult> {
  const { reply } = input;
  // One abort for the exchange: the client going away ends it with ClientAbortedError, the
  // upstream client's total deadline with an UpstreamFailure.
  const abort = new ExchangeAbort();
  const onClose = () => {
    if (!reply.raw.writableFinished) abort.abort(new ClientAbortedError());
  };
  reply.raw.once('close', onClose);
  // A client that left during governance: its 'close' came before this listener; nothing goes upstream.
  if (reply.raw.destroyed) onClose();
  const started = performance.now();
  let call: BreakerCall | undefined;
  try {
    call = admit(input);
    if (!input.request.stream) {
      // A whole answer: read into memory (its usage is in the body), then relayed.
      const response = await throughBreaker(input, call, () => input.client.sendBuffered(input.request, abort));
      // Read to its end: a success for the breaker (a 5xx was settled as a failure already).
      call.settle('success');
      const upstreamLatencyMs = latencySince(started);
      if (input.beforeRelay) await input.beforeRelay(response.status);
      return { ...relayBuffered(input, response), upstreamLatencyMs };
    }
    const response = await throughBreaker(input, call, () => input.client.open(input.request, abort));
    const upstreamLatencyMs = latencySince(started);
    const contentType = String(response.headers['content-type'] ?? '');
    if (response.status === 200 && contentType.includes('text/event-stream')) {
      // The client gets this 200 whatever the stream does later.
      if (input.beforeRelay) await input.beforeRelay(response.status);
      return { ...(await relayStream(input, response, abort, call)), upstreamLatencyMs };
    }
    // Asked to stream, answered whole (an error, or a provider that does not stream).
    const body = await readWhole(response).catch((error: unknown) => {
      call?.settle(outcomeOf(error));
      throw upstreamError(error, input.provider.id);
    });
    call.settle('success');
    if (input.beforeRelay) await input.beforeRelay(response.status);
    return { ...relayBuffered(input, { status: response.status, headers: response.headers, body }), upstreamLatencyMs };
  } catch (error) {
    // A provider's error or redirect (its headers came, status 300 or above) is its answer, not a lost one.
    if (abort.dispatched && abort.status < 300) input.onLostAfterDispatch?.();
    throw error;
  } finally {
    // Whatever ended the exchange without a verdict (the client's stream could not be started) frees a probe.
    call?.settle('unjudged');
    reply.raw.off('close', onClose);
  }
}

const latencySince = (started: number) => Math.round((performance.now() - started) * 100) / 100;

/** The breaker lets the call through, or refuses it: 503 `circuit_breaker_open`. */
function admit(input: ExchangeInput): BreakerCall {
  try {
    return input.breaker.admit();
  } catch (error) {
    throw upstreamError(error, input.provider.id);
  }
}

/**
 * The call until the provider's headers (or a whole answer): a 5xx settles it as a failure, yet its
 * answer is still relayed; a failure to answer settles it as its error is (`outcomeOf`). Any other
 * answer is left to the caller to settle once its body has been read.
 */
async function throughBreaker<R extends { status: number }>(input: ExchangeInput, call: BreakerCall, send: () => Promise<R>): Promise<R> {
  try {
    const answer = await send();
    if (answer.status >= 500) call.settle('failure');
    return answer;
  } catch (error) {
    call.settle(outcomeOf(error));
    throw upstreamError(error, input.provider.id);
  }
}

function relayBuffered(input: ExchangeInput, response: BufferedUpstreamResponse): Omit<ExchangeResult, 'upstreamLatencyMs'> {
  if (response.status >= 300 && response.status < 400) throw upstreamRedirect(input.provider.id, response.status);
  // Bytes as they came: the answer is relayed unchanged (binary bodies included) unless translated,
  // or unless it is an error that repeats the provider key (see withoutKey).
  let body = response.status >= 400 ? withoutKey(response.body, input.request.apiKey) : response.body;
  let status = response.status;
  const contentType = String(response.headers['content-type'] ?? '');
  let outType = contentType || 'application/json';
  const json = /json/i.test(contentType) || input.translate;
  let parsed: unknown;
  if (json && body.length > 0) {
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
  }
  const usage = response.status < 400 ? extractUsage(input.format, parsed) : undefined;
  if (input.translate) {
    // Whatever the provider sent (a proxy's non-JSON error page too), a format-A client gets format A.
    const translated = translateGeminiAnswer(status, parsed, body.toString('utf8'), { model: input.model });
    status = translated.status;
    // None of Gemini's headers are relayed (copyUpstreamHeaders), but a format-A client retries by
    // `retry-after`: Gemini's own, else its RetryInfo's delay (the gateway's own Retry-After wins).
    const retryAfter = headerValue(response.headers['retry-after']) ?? translated.retryAfterSeconds?.toString();
    if (status >= 400 && retryAfter !== undefined) input.reply.defaultHeader('retry-after', retryAfter);
    body = Buffer.from(JSON.stringify(translated.body));
    outType = 'application/json';
  }
  const relayed = copyUpstreamHeaders(input, response.headers);
  input.reply.send(status, body, outType);
  const replayable = json && input.keepBody ? { text: body.toString('utf8'), contentType: outType, headers: replayedHeaders(relayed) } : undefined;
  return { status, usage, usageFinal: usage !== undefined, streamed: false, textChars: 0, bufferedBody: replayable, aborted: false, bytesRelayed: body.length };
}

/**
 * Relays an SSE answer to the client chunk by chunk as undici reads it (translated for provider C,
 * its usage tracked otherwise). A client that reads slower than the provider writes pauses the
 * upstream read until the client's socket drains. A failure after the headers (connection lost,
 * deadline, a chunk that cannot be translated) ends the client's stream with an error event and
 * counts against the breaker, unless the provider's stream had already reached its documented end;
 * the client going away ends it without one.
 */
function relayStream(input: ExchangeInput, response: OpenedUpstream, abort: ExchangeAbort, call: BreakerCall): Promise<Omit<ExchangeResult, 'upstreamLatencyMs'>> {
  const raw = input.reply.raw;
  const anthropic = input.format === 'anthropic';
  try {
    // The provider's headers (its request id, rate-limit headers) reach the client as on a whole
    // answer; the SSE framing below replaces any of the provider's for the same names.
    copyUpstreamHeaders(input, response.headers);
    input.reply.startStream(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
  } catch (error) {
    // Nothing will read the provider's answer: end it rather than let it run to its end unread.
    response.abort(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  const tracker = input.translate ? undefined : createSseUsageTracker(input.format);
  const translator = input.translate ? new GeminiSseTranslator({ model: input.model, includeUsage: input.includeUsage }) : undefined;
  let bytesRelayed = 0;
  let draining = false;
  const onDrain = () => {
    draining = false;
    response.resume();
  };
  const write = (chunk: string | Uint8Array) => {
    if (chunk.length === 0 || raw.destroyed) return;
    bytesRelayed += chunk.length;
    if (!raw.write(chunk) && !draining) {
      draining = true;
      response.pause();
      raw.once('drain', onDrain);
    }
  };
  return new Promise((resolve) => {
    const finish = (failed: boolean) => {
      raw.off('drain', onDrain);
      if (!raw.destroyed) raw.end();
      const usage = translator ? translatedUsage(translator) : tracker?.usage;
      const usageFinal = usage !== undefined && (translator ? translator.translator.completed : (tracker?.usageFinal ?? false));
      const textChars = (translator ? translator.translator.textChars : tracker?.textChars) ?? 0;
      resolve({ status: failed ? 502 : 200, usage, usageFinal, streamed: true, textChars, aborted: clientGone(abort), bytesRelayed });
    };
    response.pipe({
      data(chunk) {
        try {
          if (translator) write(translator.feed(chunk));
          else {
            tracker?.feed(chunk);
            write(chunk);
          }
        } catch (error) {
          response.abort(error instanceof Error ? error : new Error(String(error)));
        }
      },
      end() {
        try {
          if (translator) write(translator.end());
          else tracker?.end();
          // An in-stream error of the provider's own side is its 5xx sent after a 200: once per stream.
          call.settle((translator ?? tracker)?.serverError ? 'failure' : 'success');
          finish(false);
        } catch (error) {
          this.error(error instanceof Error ? error : new Error(String(error)));
        }
      },
      error(error) {
        if (clientGone(abort)) {
          // Not the provider's doing: neither a success nor a failure (a probe leaves the breaker half-open).
          call.settle('unjudged');
          finish(false);
          return;
        }
        // The provider's stream had reached its documented end (`[DONE]`, `message_stop`, every
        // candidate finished) before its connection broke or the deadline passed without the
        // body's own end: the answer is whole, so it ends as a completed stream would.
        if (translator ? translator.translator.completed : tracker?.completed) {
          if (translator) write(translator.end());
          else tracker?.end();
          call.settle((translator ?? tracker)?.serverError ? 'failure' : 'success');
          finish(false);
          return;
        }
        call.settle('failure');
        // A translated stream first closes what it left open (a `<thought>` summary).
        if (translator) write(translator.fail());
        write(streamErrorEvent(anthropic, error));
        finish(true);
      },
    });
  });
}

/**
 * The provider's response headers worth passing on (`forwardResponseHeaders`), below the gateway's
 * own (which win), for whole answers and streams alike; returns those passed on. None for a
 * translated answer (provider C): Gemini's headers describe another API than the format-A answer
 * the client gets (no request id an OpenAI client would read, Google front-end headers).
 */
function copyUpstreamHeaders(input: ExchangeInput, headers: BufferedUpstreamResponse['headers']): Record<string, string> {
  if (input.translate) return {};
  const upstreamHeaders = forwardResponseHeaders(headers);
  const forms = keyForms(input.request.apiKey);
  for (const name in upstreamHeaders) {
    const value = upstreamHeaders[name];
    if (forms && forms.some((form) => value.includes(form))) upstreamHeaders[name] = scrubSecrets(value, [input.request.apiKey]);
    input.reply.defaultHeader(name, upstreamHeaders[name]);
  }
  return upstreamHeaders;
}

/** The forms in which `scrubSecrets` finds the key (`secretForms`); undefined for none worth searching. */
function keyForms(apiKey: string | undefined): string[] | undefined {
  return isScrubbable(apiKey) ? secretForms(apiKey) : undefined;
}

/**
 * An error answer without the provider key in it: a provider's error page may quote the request it
 * refused (a self-hosted server echoing its headers, a front end quoting the URL with Gemini's
 * `?key=`), and the key is often not the client's own (a stored secret, a provider target's key,
 * the deployment's). `scrubSecrets` replaces it as written, percent-encoded and JSON-escaped; the
 * very same Buffer comes back when it is not there (one native search per form, no decoding).
 */
function withoutKey(body: Buffer, apiKey: string | undefined): Buffer {
  const forms = keyForms(apiKey);
  if (!forms || body.length === 0 || !forms.some((form) => body.includes(form))) return body;
  const text = body.toString('utf8');
  const scrubbed = scrubSecrets(text, [apiKey]);
  return scrubbed === text ? body : Buffer.from(scrubbed);
}

/**
 * The provider's headers kept with an idempotent answer for its replays: not its `date` (a replay
 * has its own) nor `content-type` (stored apart); only plain names, which any document store keeps as
 * they are (a name with `.` or `$` would be a path or an operator there).
 */
function replayedHeaders(relayed: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name in relayed) if (name !== 'date' && name !== 'content-type' && /^[a-z0-9_-]+$/.test(name)) kept[name] = relayed[name];
  return kept;
}

/** The exchange was aborted because the client went away (not by a deadline). */
function clientGone(abort: ExchangeAbort): boolean {
  return abort.reason instanceof ClientAbortedError;
}

function translatedUsage(translator: GeminiSseTranslator): TokenUsage | undefined {
  const usage = translator.translator.usage;
  if (!usage) return undefined;
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheCreationInputTokens: 0,
    cacheCreation1hInputTokens: 0,
    reasoningTokens: 0,
    // The uncached audio part of the prompt, priced at the audio input price (`mapUsage`).
    audioInputTokens: usage.prompt_tokens_details?.audio_tokens || undefined,
  };
}

/** Ends a broken stream in the client's own format, so SDKs raise instead of hanging or truncating silently. */
function streamErrorEvent(anthropic: boolean, error: unknown): string {
  const message = `The upstream stream failed: ${(error as Error).message ?? 'connection lost'}`;
  if (anthropic) return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`;
  return `data: ${JSON.stringify({ error: { message, type: 'api_error', param: null, code: 'upstream_stream_error' } })}\n\n`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
