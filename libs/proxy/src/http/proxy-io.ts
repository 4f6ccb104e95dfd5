import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_CONTENT_SECURITY_POLICY } from '@svc/platform';

/**
 * The proxy pipeline's view of one HTTP exchange: Node's own request and response, without
 * Fastify's reply machinery (serializers, onSend hooks), so the hot path does only what a proxy
 * needs. Built from a Fastify request whose reply was hijacked (see ProxyRoutes).
 */
export interface ProxyRequest {
  /** `gw_...`: the request id Fastify generated. */
  readonly id: string;
  readonly method: string;
  /** Path and query as received. */
  readonly url: string;
  /** Lower-case header names, as Node parses them (one value of a header Node does not repeat, e.g. `authorization`). */
  readonly headers: IncomingHttpHeaders;
  /** Names and values as received, alternating (every `Authorization` value is here). */
  readonly rawHeaders: readonly string[];
  /** The parsed query string. */
  readonly query: Readonly<Record<string, unknown>>;
  /** The peer address of the socket (before any trusted proxy is considered); undefined once the client closed it. */
  readonly remoteAddress: string | undefined;
  /** The unread body. */
  readonly body: Readable;
}

/** Response headers collected during the pipeline and written once with the status line. */
export class ProxyReply {
  private readonly headers: OutgoingHttpHeaders = {};

  constructor(readonly raw: ServerResponse) {}

  /** Sets a header (names are case-insensitive; a later value replaces an earlier one). */
  header(name: string, value: string | number | readonly string[]): this {
    this.headers[name.toLowerCase()] = value as string | number | string[];
    return this;
  }

  /** Sets a header unless one of that name is set already (the gateway's own headers win). */
  defaultHeader(name: string, value: string | number | readonly string[]): this {
    const key = name.toLowerCase();
    if (this.headers[key] === undefined) this.headers[key] = value as string | number | string[];
    return this;
  }

  setHeaders(headers: Readonly<Record<string, string>>): this {
    for (const name in headers) this.headers[name.toLowerCase()] = headers[name];
    return this;
  }

  getHeader(name: string): OutgoingHttpHeaders[string] {
    return this.headers[name.toLowerCase()];
  }

  /** True once the status line went out (a stream started, or a whole answer was sent). */
  get sent(): boolean {
    return this.raw.headersSent;
  }

  /**
   * Sends a whole answer: the collected headers, `content-type`, `content-length` and the API
   * answers' own (`withApiHeaders`): `no-store` unless the provider set a `Cache-Control`.
   */
  send(status: number, body: Buffer | string, contentType: string): void {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    this.headers['content-type'] = contentType;
    this.headers['content-length'] = bytes.byteLength;
    if (this.headers['cache-control'] === undefined) this.headers['cache-control'] = 'no-store';
    this.raw.writeHead(status, withApiHeaders(this.headers));
    this.raw.end(bytes);
  }

  sendJson(status: number, value: unknown): void {
    this.send(status, JSON.stringify(value), 'application/json; charset=utf-8');
  }

  /**
   * Starts a streamed answer with the collected headers plus `extra`, sent at once: Node would hold
   * them until the first event, so a client (or a proxy in front with a first-byte deadline) of a
   * provider that thinks before its first event would see nothing, not even the request id.
   */
  startStream(status: number, extra: OutgoingHttpHeaders): void {
    this.raw.writeHead(status, withApiHeaders({ ...this.headers, ...extra }));
    this.raw.flushHeaders();
  }
}

/**
 * The headers every proxy answer carries whatever the provider sent, as Fastify's answers get them
 * from `useApiResponseHeaders` (@svc/platform), which the hijacked reply skips: `nosniff`, so a
 * browser never renders a provider's (or a provider target's) answer as another type than declared,
 * and the API's Content-Security-Policy, so a provider's HTML error page opened in a browser runs,
 * loads, submits and frames nothing. Both constants, replacing whatever the provider sent.
 */
function withApiHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  headers['x-content-type-options'] = 'nosniff';
  headers['content-security-policy'] = API_CONTENT_SECURITY_POLICY;
  return headers;
}

/** The pipeline's request from a Fastify request: the body is the untouched Node stream. */
export function proxyRequestOf(request: FastifyRequest, body?: Readable): ProxyRequest {
  const raw: IncomingMessage = request.raw;
  return {
    id: String(request.id),
    method: raw.method ?? 'GET',
    url: raw.url ?? '/',
    headers: raw.headers,
    rawHeaders: raw.rawHeaders,
    query: (request.query ?? {}) as Record<string, unknown>,
    remoteAddress: raw.socket.remoteAddress ?? request.ip,
    body: body ?? raw,
  };
}

/** Takes the reply away from Fastify: from here on the pipeline writes to Node's response. */
export function hijackReply(reply: FastifyReply): ProxyReply {
  reply.hijack();
  return new ProxyReply(reply.raw);
}
