import type { IncomingHttpHeaders } from 'node:http';
import { Agent, Dispatcher } from '@svc/platform';
import { UpstreamFailure } from '../breaker/provider-breaker';
import { classify } from './classify';
import { needsSubSecondDeadlines, SubSecondDeadlines } from './sub-second-deadlines';

export { classify, ClientAbortedError, UpstreamRequestInvalid } from './classify';

export interface UpstreamDeadlines {
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  totalTimeoutMs: number;
}

export interface UpstreamRequest {
  url: string;
  /** Parsed from `url` when absent. */
  origin?: string;
  path?: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Receives a streamed answer's body (`OpenedUpstream.pipe`): its chunks as they arrive, then its end or its failure. */
export interface UpstreamSink {
  data(chunk: Buffer): void;
  end(): void;
  /** An UpstreamFailure (connection lost, deadline), a ClientAbortedError, or what the exchange was aborted with. */
  error(error: Error): void;
}

/** An answer whose headers have arrived and whose body has not been read yet (`open`). */
export interface OpenedUpstream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Starts delivering the body to `sink`, beginning with any chunks that arrived before. Once. */
  pipe(sink: UpstreamSink): void;
  /** Backpressure: stops reading from the provider until `resume`. */
  pause(): void;
  resume(): void;
  /** Ends the exchange: the sink gets `error(reason)` (as classified) unless the body already ended. */
  abort(reason: Error): void;
}

/** A whole answer, read into memory (`sendBuffered`). */
export interface BufferedUpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Ends one exchange early: the client went away (ClientAbortedError) or the total deadline passed
 * (UpstreamFailure). The first reason wins. Lighter than an AbortController: undici's dispatch
 * API takes an abort through its controller, not a signal.
 *
 * undici hears an abort only from a started request, and a request starts once its connection is
 * made (nodejs/undici#386). An abort before that goes to the `listen` listener, which ends the
 * exchange there and then; the request is aborted when it starts.
 */
export class ExchangeAbort {
  reason: Error | null = null;
  /**
   * The request was handed to the provider: undici started it with no abort before, and writes its
   * headers and body (always a Buffer here) to the connection in that same turn. From here on the
   * provider has the prompt, whatever becomes of the exchange.
   */
  dispatched = false;
  /** The status of the provider's answer once its headers arrived; 0 before. */
  status = 0;
  private request: Dispatcher.DispatchController | null = null;
  private beforeStart: ((reason: Error) => void) | null = null;

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    if (this.request) this.request.abort(reason);
    else this.beforeStart?.(reason);
  }

  /** The request started (undici's `onRequestStart`): aborts reach it from now on, or at once if one came before. */
  started(request: Dispatcher.DispatchController): void {
    this.request = request;
    // An abort before the start ends the request before undici writes any of it.
    if (this.reason) request.abort(this.reason);
    else this.dispatched = true;
  }

  /** Calls `beforeStart` on an abort before the request started, or at once if already aborted (one listener: the exchange's transport). */
  listen(beforeStart: (reason: Error) => void): void {
    this.beforeStart = beforeStart;
    if (this.reason && !this.request) beforeStart(this.reason);
  }
}

/**
 * Calls providers over pooled keep-alive connections (one undici pool per origin) with three
 * deadlines: connect, first byte (response headers) and total. A connection error or a deadline
 * becomes an UpstreamFailure (it counts against the provider's breaker); the caller's abort does not.
 */
export class UpstreamClient {
  private readonly agent: Agent;
  /** A deadline under a second, which undici's coarse timers would keep only to the second (`SubSecondDeadlines`). */
  private readonly subSecond: boolean;
  /** undici's headers and body timeouts: the first-byte deadline, or off when `SubSecondDeadlines` keeps it. */
  private readonly undiciFirstByteMs: number;

  /** `agent` replaces the default pool (e.g. an outbound-safety agent for user-configured targets). */
  constructor(
    private readonly deadlines: UpstreamDeadlines,
    agent?: Agent,
  ) {
    this.subSecond = needsSubSecondDeadlines(deadlines);
    this.undiciFirstByteMs = SubSecondDeadlines.undiciFirstByteMs(deadlines);
    this.agent =
      agent ??
      new Agent({
        connect: { timeout: deadlines.connectTimeoutMs },
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 120_000,
        connections: 256,
        pipelining: 1,
      });
  }

  /**
   * Sends the request and resolves once the answer's headers arrive; the body is then delivered,
   * chunk by chunk as undici reads it, to the sink given to `pipe`. Through undici's dispatch API:
   * no response stream, no AbortSignal, no promise per chunk (streamed answers: -19 % gateway CPU
   * per request against `request()`, docs/benchmarks.md). `abort` is the caller's: the client going
   * away ends the exchange with a ClientAbortedError; the total deadline ends it with an
   * UpstreamFailure (before the headers: the promise rejects; after: the sink's `error`).
   */
  open(request: UpstreamRequest, abort: ExchangeAbort = new ExchangeAbort()): Promise<OpenedUpstream> {
    return new Promise((resolve, reject) => {
      const total = this.totalDeadline(abort);
      const precise = this.subSecond ? new SubSecondDeadlines(this.deadlines, abort) : undefined;
      let controller: Dispatcher.DispatchController | undefined;
      let sink: UpstreamSink | undefined;
      // Chunks (and the end or failure) that came before `pipe`: undici may read them in the same
      // turn as the headers, before the caller has seen the promise resolve.
      const early: Buffer[] = [];
      let ended = false;
      let failure: Error | undefined;
      let started = false;
      const opened = {
        status: 0,
        headers: {} as IncomingHttpHeaders,
        pipe(to: UpstreamSink) {
          sink = to;
          for (const chunk of early.splice(0)) to.data(chunk);
          if (failure) to.error(failure);
          else if (ended) to.end();
        },
        pause: () => {
          precise?.paused();
          controller?.pause();
        },
        resume: () => {
          precise?.resumed();
          controller?.resume();
        },
        abort: (reason: Error) => abort.abort(reason),
      };
      precise?.dispatched();
      this.agent.dispatch(this.dispatchOptions(request), {
        onRequestStart(requestController) {
          controller = requestController;
          precise?.started();
          abort.started(requestController);
        },
        onResponseStart(_controller, statusCode, headers) {
          precise?.headers();
          started = true;
          abort.status = statusCode;
          opened.status = statusCode;
          opened.headers = headers;
          resolve(opened);
        },
        onResponseData(_controller, chunk) {
          precise?.data();
          if (sink) sink.data(chunk);
          else early.push(chunk);
        },
        onResponseEnd() {
          clearTimeout(total);
          precise?.done();
          ended = true;
          sink?.end();
        },
        onResponseError(_controller, error) {
          clearTimeout(total);
          precise?.done();
          const classified = classify(error, abort.reason);
          if (!started) {
            reject(classified);
            return;
          }
          failure = classified;
          sink?.error(classified);
        },
      });
      abort.listen((reason) => {
        clearTimeout(total);
        precise?.done();
        reject(classify(reason, reason));
      });
    });
  }

  /**
   * Sends the request and reads the whole answer into memory, with the deadlines and abort of
   * `open`. Its own dispatch handler rather than `open` + `readWhole`: every non-streamed request
   * comes this way, and the two promises, the sink and the closures of that composition measured
   * 8-12 % more gateway CPU per request at c=50 (two runs of 8 paired runs).
   */
  sendBuffered(request: UpstreamRequest, abort: ExchangeAbort = new ExchangeAbort()): Promise<BufferedUpstreamResponse> {
    return new Promise((resolve, reject) => {
      const total = this.totalDeadline(abort);
      const precise = this.subSecond ? new SubSecondDeadlines(this.deadlines, abort) : undefined;
      const chunks: Buffer[] = [];
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      precise?.dispatched();
      this.agent.dispatch(this.dispatchOptions(request), {
        onRequestStart(controller) {
          precise?.started();
          abort.started(controller);
        },
        onResponseStart(_controller, statusCode, responseHeaders) {
          precise?.headers();
          status = statusCode;
          abort.status = statusCode;
          headers = responseHeaders;
        },
        onResponseData(_controller, chunk) {
          precise?.data();
          chunks.push(chunk);
        },
        onResponseEnd() {
          clearTimeout(total);
          precise?.done();
          resolve({ status, headers, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) });
        },
        onResponseError(_controller, error) {
          clearTimeout(total);
          precise?.done();
          reject(classify(error, abort.reason));
        },
      });
      abort.listen((reason) => {
        clearTimeout(total);
        precise?.done();
        reject(classify(reason, reason));
      });
    });
  }

  private dispatchOptions(request: UpstreamRequest): Dispatcher.DispatchOptions {
    return {
      origin: request.origin ?? new URL(request.url).origin,
      path: request.path ?? pathAndQuery(request.url),
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: request.body,
      headersTimeout: this.undiciFirstByteMs,
      bodyTimeout: this.undiciFirstByteMs,
    };
  }

  /** The total deadline: aborts the exchange with an UpstreamFailure unless cleared first. */
  private totalDeadline(abort: ExchangeAbort): NodeJS.Timeout {
    const timer = setTimeout(() => abort.abort(new UpstreamFailure('upstream total deadline passed')), this.deadlines.totalTimeoutMs);
    timer.unref();
    return timer;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The rest of an opened answer, read into memory; rejects as the sink's `error` would be called. */
export function readWhole(opened: OpenedUpstream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    opened.pipe({
      data: (chunk) => chunks.push(chunk),
      end: () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)),
      error: reject,
    });
  });
}

function pathAndQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}
