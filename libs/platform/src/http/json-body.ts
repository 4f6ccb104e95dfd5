import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MalformedJsonError } from '../errors/errors';
import { jsonSyntaxMessage, MAX_JSON_DEPTH, nestsDeeperThan, TOO_DEEP_MESSAGE } from './json-depth';

export interface BodyOptions {
  /**
   * Requests whose URL starts with this prefix get their body as the unread request stream
   * (`request.body` is the stream), whatever its content type: the proxy reads it itself, with the
   * organization's size limit, after authenticating from the headers.
   */
  rawBodyPrefix?: string;
  /**
   * Prefixes under `rawBodyPrefix` whose JSON bodies are parsed as everywhere else: routes of
   * another module served on the same port (the gateway admin's `/v1/admin/` on `npm start`'s).
   */
  parsedBodyPrefixes?: readonly string[];
}

/**
 * JSON is the only body these APIs take: Fastify's text/plain parser is removed (so other types
 * get 415 on the routes that exist; a request no route serves gets its 404 whatever its type, see
 * SurfaceExceptionFilter), and JSON is parsed here so a malformed body raises an error that keeps its code. An
 * empty body with `Content-Type: application/json` is treated as no body; one nested deeper than
 * MAX_JSON_DEPTH is a 400.
 */
export function useJsonBodies(fastify: FastifyInstance, options: BodyOptions = {}): void {
  const parsed = options.parsedBodyPrefixes ?? [];
  const raw = (request: FastifyRequest) =>
    options.rawBodyPrefix !== undefined && request.url.startsWith(options.rawBodyPrefix) && !parsed.some((prefix) => request.url.startsWith(prefix));
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', (request, payload, done) => {
    if (raw(request)) {
      done(null, payload);
      return;
    }
    if (request.is404) {
      // No route serves it: its 404 is the answer, whatever the body holds (left unread, as the proxy leaves it).
      done(null, undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const limit = request.routeOptions.bodyLimit ?? fastify.initialConfig.bodyLimit ?? 1024 * 1024;
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        payload.removeAllListeners('data');
        const error = Object.assign(new Error(`Request body is too large (limit ${limit} bytes, ${megabytes(limit)} MB)`), {
          code: 'FST_ERR_CTP_BODY_TOO_LARGE',
          statusCode: 413,
        });
        done(error, undefined);
        return;
      }
      chunks.push(chunk);
    });
    payload.on('error', (error) => done(error, undefined));
    payload.on('end', () => {
      if (size > limit) return;
      const text = Buffer.concat(chunks, size).toString('utf8');
      if (text.length === 0) {
        // No body at all (e.g. a client that always sends the JSON content type): the same as no body.
        // Routes that need one still refuse it when they validate it.
        done(null, undefined);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        done(new MalformedJsonError(jsonSyntaxMessage(error)), undefined);
        return;
      }
      if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) done(Object.assign(new Error(TOO_DEEP_MESSAGE), { statusCode: 400 }), undefined);
      else done(null, parsed);
    });
  });
  if (options.rawBodyPrefix !== undefined) {
    fastify.addContentTypeParser('*', (request, payload, done) => {
      if (raw(request)) done(null, payload);
      else done(Object.assign(new Error(`Unsupported Media Type: ${request.headers['content-type']}`), { statusCode: 415 }), undefined);
    });
  }
}

/** Bytes as MB (1,048,576 bytes) with at most two decimals (`1`, `0.5`, `12.25`), or two significant digits below 0.01 MB (`0.0019`), never a bare `0`: the 413 messages of every surface. */
export function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return String(mb >= 0.01 || mb <= 0 ? Math.round(mb * 100) / 100 : Number(mb.toPrecision(2)));
}
