import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, Dispatcher, undiciErrors } from '@svc/platform';
import { UpstreamFailure } from '../breaker/provider-breaker';

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

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable & { text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer>; dump(): Promise<void> };
}

/** A whole answer, read into memory (`sendBuffered`). */
export interface BufferedUpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Ends one exchange early: the client went away (ClientAbortedError) or the total deadline passed
 * (UpstreamFailure). The first reason wins. Lighter than an AbortController, which only the
 * streaming path needs (its body is a stream that takes a signal).
 */
export class ExchangeAbort {
  reason: Error | null = null;
  private onAbort: ((reason: Error) => void) | null = null;

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.onAbort?.(reason);
  }

  /** Calls `listener` on abort, or at once if already aborted (one listener: the exchange's transport). */
  listen(listener: (reason: Error) => void): void {
    this.onAbort = listener;
    if (this.reason) listener(this.reason);
  }
}

/** The client went away before the upstream answered; not the provider's fault. */
export class ClientAbortedError extends Error {
  constructor() {
    super('client closed the request');
    this.name = 'ClientAbortedError';
  }
}

const FAILURE_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
]);

/**
 * Calls providers over pooled keep-alive connections (one undici pool per origin) with three
 * deadlines: connect, first byte (response headers) and total. A connection error or a deadline
 * becomes an UpstreamFailure (it counts against the provider's breaker); the caller's abort does not.
 */
export class UpstreamClient {
  private readonly agent: Agent;

  /** `agent` replaces the default pool (e.g. an outbound-safety agent for user-configured targets). */
  constructor(
    private readonly deadlines: UpstreamDeadlines,
    agent?: Agent,
  ) {
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
   * Sends the request and returns the answer as a stream (for streamed answers). `abort` is the
   * caller's: the client going away ends the exchange with a ClientAbortedError; the total deadline
   * ends it with an UpstreamFailure.
   */
  async send(request: UpstreamRequest, abort: ExchangeAbort = new ExchangeAbort()): Promise<UpstreamResponse> {
    const controller = new AbortController();
    abort.listen((reason) => controller.abort(reason));
    const total = this.totalDeadline(abort);
    const cleanup = () => clearTimeout(total);
    let response: Dispatcher.ResponseData;
    try {
      response = await this.agent.request({ ...this.dispatchOptions(request), signal: controller.signal });
    } catch (error) {
      cleanup();
      throw classify(error, abort.reason);
    }
    response.body.once('close', cleanup);
    response.body.once('error', cleanup);
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body as unknown as UpstreamResponse['body'],
    };
  }

  /**
   * Sends the request and reads the whole answer into memory, with the same deadlines and abort as
   * `send`. Through undici's dispatch API: no response stream, no AbortSignal and no promise per
   * chunk, which makes a non-streamed exchange about 20 µs cheaper (docs/benchmarks.md).
   */
  sendBuffered(request: UpstreamRequest, abort: ExchangeAbort = new ExchangeAbort()): Promise<BufferedUpstreamResponse> {
    return new Promise((resolve, reject) => {
      const total = this.totalDeadline(abort);
      const chunks: Buffer[] = [];
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      this.agent.dispatch(this.dispatchOptions(request), {
        onRequestStart(controller) {
          abort.listen((reason) => controller.abort(reason));
        },
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          headers = responseHeaders;
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          clearTimeout(total);
          resolve({ status, headers, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) });
        },
        onResponseError(_controller, error) {
          clearTimeout(total);
          reject(classify(error, abort.reason));
        },
      });
    });
  }

  private dispatchOptions(request: UpstreamRequest): Dispatcher.DispatchOptions {
    return {
      origin: request.origin ?? new URL(request.url).origin,
      path: request.path ?? pathOf(request.url),
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: request.body,
      headersTimeout: this.deadlines.firstByteTimeoutMs,
      bodyTimeout: this.deadlines.firstByteTimeoutMs,
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

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** Maps what undici threw to UpstreamFailure (counts), ClientAbortedError, or the error itself; `reason`: why the exchange was aborted, if it was. */
export function classify(error: unknown, reason?: Error | null): Error {
  if (reason instanceof ClientAbortedError || reason instanceof UpstreamFailure) return reason;
  if (error instanceof UpstreamFailure || error instanceof ClientAbortedError) return error;
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (error instanceof undiciErrors.UndiciError || (code && FAILURE_CODES.has(code))) {
    return new UpstreamFailure(describe(code, error), error);
  }
  return error instanceof Error ? error : new Error(String(error));
}

function describe(code: string | undefined, error: unknown): string {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'upstream connect timeout';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'upstream first-byte timeout';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'upstream stalled while sending the body';
    case 'ECONNREFUSED':
      return 'upstream refused the connection';
    default:
      return `upstream connection error (${code ?? (error as Error).message})`;
  }
}
