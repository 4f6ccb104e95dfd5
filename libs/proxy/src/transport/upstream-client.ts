import { Agent, Dispatcher, errors } from 'undici';
import type { Readable } from 'node:stream';
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
  /** Aborts the exchange (client went away, or the total deadline passed). */
  abort(): void;
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
   * Sends the request. `controller` is the caller's: aborting it with a ClientAbortedError (the
   * client went away) ends the exchange; the total deadline aborts it with an UpstreamFailure. One
   * controller per exchange, shared, since a signal is not free on the hot path.
   */
  async send(request: UpstreamRequest, controller: AbortController = new AbortController()): Promise<UpstreamResponse> {
    const total = setTimeout(() => controller.abort(new UpstreamFailure('upstream total deadline passed')), this.deadlines.totalTimeoutMs);
    total.unref();
    const cleanup = () => clearTimeout(total);
    let response: Dispatcher.ResponseData;
    try {
      response = await this.agent.request({
        origin: request.origin ?? new URL(request.url).origin,
        path: request.path ?? pathOf(request.url),
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
        headersTimeout: this.deadlines.firstByteTimeoutMs,
        bodyTimeout: this.deadlines.firstByteTimeoutMs,
      });
    } catch (error) {
      cleanup();
      throw classify(error, controller.signal);
    }
    response.body.once('close', cleanup);
    response.body.once('error', cleanup);
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body as unknown as UpstreamResponse['body'],
      abort: () => controller.abort(new ClientAbortedError()),
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** Maps what undici threw to UpstreamFailure (counts), ClientAbortedError, or the error itself. */
export function classify(error: unknown, signal?: AbortSignal): Error {
  const reason = signal?.aborted ? signal.reason : undefined;
  if (reason instanceof ClientAbortedError || reason instanceof UpstreamFailure) return reason;
  if (error instanceof UpstreamFailure || error instanceof ClientAbortedError) return error;
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (error instanceof errors.UndiciError || (code && FAILURE_CODES.has(code))) {
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
