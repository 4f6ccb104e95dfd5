import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real webhook receiver for end-to-end specs (the dispatcher's and the one-process service's):
 * an HTTP server on 127.0.0.1 that keeps every request's raw bytes and answers per path.
 */

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text. */
  body: string;
  /** The body exactly as it arrived. */
  raw: Buffer;
  /** performance.now() when the request had fully arrived. */
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** Never answer (the connection stays open until the client gives up or dies). */
  hang?: boolean;
  /** Send the status and headers at once, then one byte of body every `dripMs`, never ending. */
  dripMs?: number;
}

type Behaviour = (request: Received, nth: number) => Reply;

/** A real webhook receiver on 127.0.0.1: records every request and answers as each path is told to. */
export class Receiver {
  readonly requests: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();

  private readonly server: Server;
  base = '';

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const request: Received = { path: req.url ?? '/', headers: req.headers, body: raw.toString('utf8'), raw, at: performance.now() };
        this.requests.push(request);
        const nth = this.on(request.path).length;
        const reply: Reply = (this.behaviours.get(request.path) ?? (() => ({ status: 200 })))(request, nth);
        if (reply.hang) return;
        if (reply.dripMs) {
          res.writeHead(reply.status, reply.headers).flushHeaders();
          const drip = setInterval(() => res.write('.'), reply.dripMs);
          return void res.on('close', () => clearInterval(drip));
        }
        const send = () => res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
        if (!reply.delayMs) return void send();
        const timer = setTimeout(send, reply.delayMs);
        res.on('close', () => clearTimeout(timer));
      });
    });
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.base = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  behave(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  on(path: string): Received[] {
    return this.requests.filter((request) => request.path === path);
  }

  async waitFor(path: string, count: number, timeoutMs = 10_000): Promise<Received[]> {
    await waitUntil(() => this.on(path).length >= count, timeoutMs, `${count} request(s) on ${path}`);
    return this.on(path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** SPEC.md's receiver check: `sha256=` + the hex HMAC-SHA256 of the raw body with the secret, compared in constant time. */
export function hmacSignatureValid(request: Received, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.raw).digest('hex')}`);
  const given = Buffer.from(String(request.headers['x-webhook-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
