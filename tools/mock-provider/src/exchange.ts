/**
 * One request/response pair as the format handlers see it, plus the response helpers they share:
 * JSON answers, credential checks and an event-stream writer that applies slow drip and mid-stream
 * aborts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PromptCache } from './anthropic-content';
import type { StreamErrorBehavior } from './types';

export interface Settings {
  validKeys: string[] | null;
  requireAuth: boolean;
  models: string[];
}

export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** Normalized path (no query, no trailing slash, no repeated slashes). */
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: unknown;
  /** Request sequence number (also used in response ids). */
  readonly seq: number;
  readonly settings: Settings;
  /** Reply text override from the matched behaviour rule. */
  readonly reply: string | undefined;
  /** Extra response headers from the matched behaviour rule (they replace the mock's own). */
  readonly headers?: Record<string, string>;
  /** Delay between stream events (slow drip), ms. */
  readonly chunkDelayMs: number;
  /** Consumes the armed stream abort, if any: number of events to write before aborting. */
  takeAbort(): number | undefined;
  /** Consumes the armed in-stream error of a B stream, if any. */
  takeStreamError(): StreamErrorBehavior | undefined;
  /** The B prompt cache (prefixes written by earlier requests). */
  readonly promptCache: PromptCache;
}

export type KeyStatus = 'ok' | 'missing' | 'invalid';

/** Responses the mock cut on purpose (`drop`, `abort`): their close is not the client going away. */
const cutByMock = new WeakSet<ServerResponse>();

/** Destroys the connection of `res` on purpose (an injected failure). */
export function cut(res: ServerResponse): void {
  cutByMock.add(res);
  res.destroy();
}

/** Whether the connection of `res` was destroyed by the mock itself. */
export function wasCutByMock(res: ServerResponse): boolean {
  return cutByMock.has(res);
}

/** Checks a provider credential: any non-empty key not starting with `invalid`, or one of `validKeys`. */
export function checkKey(settings: Settings, key: string | undefined): KeyStatus {
  if (!settings.requireAuth) return 'ok';
  if (!key) return 'missing';
  if (settings.validKeys) return settings.validKeys.includes(key) ? 'ok' : 'invalid';
  return key.startsWith('invalid') ? 'invalid' : 'ok';
}

export function header(ex: Exchange, name: string): string | undefined {
  const value = ex.req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Writes a whole answer with its `content-length`; a string body is sent as text, anything else as
 * JSON. `truncate`: only the first half of the body is written, then the connection is cut (the
 * client sees the body end early).
 */
export function writeBody(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>, truncate = false): void {
  if (res.destroyed || res.headersSent) return;
  const text = typeof body === 'string';
  const payload = Buffer.from(text ? body : JSON.stringify(body));
  res.writeHead(status, {
    'content-type': text ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': payload.length,
    ...headers,
  });
  if (!truncate) {
    res.end(payload);
    return;
  }
  res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => cut(res));
}

export function sendJson(ex: Exchange, status: number, body: unknown, headers?: Record<string, string>): void {
  writeBody(ex.res, status, body, { ...headers, ...ex.headers });
}

/** Waits `ms`; resolves false (early) when the connection closes meanwhile. */
export function sleep(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (res.destroyed) {
      resolve(false);
      return;
    }
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

/**
 * Writes a streaming response event by event. Each `send` is one event: the slow-drip delay is applied
 * before every event but the first, and an armed abort destroys the socket once its event count is
 * reached (the events before it are flushed first).
 */
export class EventStream {
  private count = 0;
  private readonly abortAt: number | undefined;

  constructor(
    private readonly ex: Exchange,
    contentType = 'text/event-stream',
    headers: Record<string, string> = {},
  ) {
    this.abortAt = ex.takeAbort();
    ex.res.writeHead(200, {
      'content-type': contentType,
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...headers,
      ...ex.headers,
    });
    if (this.abortAt === 0) ex.res.flushHeaders();
  }

  /** Writes one event; resolves false when the stream is over (client gone or aborted). */
  async send(text: string): Promise<boolean> {
    const { res, chunkDelayMs } = this.ex;
    if (this.count > 0 && chunkDelayMs > 0 && !(await sleep(res, chunkDelayMs))) return false;
    if (res.destroyed) return false;
    if (this.abortAt !== undefined && this.count >= this.abortAt) {
      cut(res);
      return false;
    }
    this.count++;
    if (this.abortAt !== undefined && this.count === this.abortAt) {
      await new Promise<void>((resolve) => {
        res.once('close', resolve);
        res.write(text, () => resolve());
      });
      cut(res);
      return false;
    }
    res.write(text);
    return true;
  }

  /**
   * Sends every event in order, then ends the response (unless the stream was cut). Without drip or
   * abort the events go out in one write (still separate SSE events, chunked transfer encoding).
   */
  async sendAll(events: string[]): Promise<void> {
    const { res, chunkDelayMs } = this.ex;
    if (this.abortAt === undefined && chunkDelayMs <= 0) {
      if (!res.destroyed) res.end(events.join(''));
      return;
    }
    for (const event of events) {
      if (!(await this.send(event))) return;
    }
    if (!res.destroyed) res.end();
  }
}
