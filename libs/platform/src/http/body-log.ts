import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable, Transform } from 'node:stream';
import type { Logger } from 'pino';
import { redactUrl } from '@svc/telemetry';

/** Bodies up to this size are parsed and logged; larger ones are logged by size only. */
export const LOGGED_BODY_LIMIT = 256 * 1024;

function isStream(body: unknown): body is Readable {
  return body instanceof Readable || (typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function');
}

/**
 * `LOG_BODIES` (at debug level): logs every request body once it has been read, with credentials
 * redacted by the logger (`password`, `api_key`, `plaintext_key`, ...). JSON bodies parsed by Fastify
 * are logged before the handler runs. A body left unread for its route (the proxy's `/v1/` routes,
 * read later with the organization's size limit) is passed through a tap that copies what the route
 * reads and logs it when the route has read all of it, so the route still gets every byte.
 */
export function useBodyLogging(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('preHandler', (request, _reply, done) => {
    const body: unknown = request.body;
    if (isStream(body)) request.body = tap(body, request, logger);
    else if (body !== undefined) logger.debug({ ...describe(request), body }, 'request body');
    done();
  });
}

function describe(request: FastifyRequest) {
  return { request_id: String(request.id), method: request.method, url: redactUrl(request.url) };
}

function tap(source: Readable, request: FastifyRequest, logger: Logger): Readable {
  const chunks: Buffer[] = [];
  let size = 0;
  const copy = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size <= LOGGED_BODY_LIMIT) chunks.push(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      logger.debug({ ...describe(request), ...decode(chunks, size, request.headers['content-type']) }, 'request body');
      callback();
    },
  });
  source.once('error', (error) => copy.destroy(error));
  return source.pipe(copy);
}

function decode(chunks: Buffer[], size: number, contentType: string | undefined): Record<string, unknown> {
  if (size === 0) return { body_bytes: 0 };
  if (size > LOGGED_BODY_LIMIT || !/json/i.test(contentType ?? '')) return { body_bytes: size, body_omitted: 'not JSON or too large to log' };
  try {
    return { body: JSON.parse(Buffer.concat(chunks, size).toString('utf8')) as unknown };
  } catch {
    return { body_bytes: size, body_omitted: 'not valid JSON' };
  }
}
