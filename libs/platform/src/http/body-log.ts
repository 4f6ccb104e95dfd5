import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable, Transform } from 'node:stream';
import type { Logger } from 'pino';
import { redactUrl } from '@svc/telemetry';
import { redactBody, TextMask } from '../logging/redact';

/** Bodies up to this size are parsed and logged; larger ones are logged by size only. */
export const LOGGED_BODY_LIMIT = 256 * 1024;

function isStream(body: unknown): body is Readable {
  return body instanceof Readable || (typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function');
}

/** True when `LOG_BODIES` is set and the logger writes debug lines: the only case bodies are logged. */
export function bodyLoggingEnabled(config: { LOG_BODIES: boolean }, logger: Logger): boolean {
  return config.LOG_BODIES && logger.isLevelEnabled('debug');
}

/**
 * `LOG_BODIES` (at debug level): logs every request body once it has been read, with credentials
 * redacted (`password`, `api_key`, `plaintext_key`, ...) and every absolute URL masked to its scheme
 * and host (`redactBody`: team-chat webhook URLs carry their secret in the path; user info is masked
 * too); objects nested deeper than the logger walks are logged as `[TRUNCATED]`. With `mask` (the
 * services wire in the stage 4 PII detectors' `maskPii`), every string value is masked too: prompts
 * and member names or e-mail addresses are logged as `[REDACTED:email]`, ... JSON bodies parsed by Fastify
 * are logged before the handler runs. A body left unread for its route (`rawBodyPrefix`) is passed
 * through `tapRequestBody`. Code that takes a request over before body parsing (the proxy's
 * `onRequest` hot path) calls `tapRequestBody` itself on the stream it reads.
 */
export function useBodyLogging(fastify: FastifyInstance, logger: Logger, mask?: TextMask): void {
  fastify.addHook('preHandler', (request, _reply, done) => {
    const body: unknown = request.body;
    if (isStream(body)) request.body = tapRequestBody(body, request, logger, mask);
    else if (body !== undefined) logger.debug({ ...describe(request), body: redactBody(body, mask) }, 'request body');
    done();
  });
}

function describe(request: Pick<FastifyRequest, 'id' | 'method' | 'url'>) {
  return { request_id: String(request.id), method: request.method, url: redactUrl(request.url) };
}

/**
 * Returns a stream with every byte of `source` that also logs the body at debug level (parsed JSON
 * up to 256 KiB, otherwise its size) once the reader has read all of it, its string values masked
 * by `mask` when given (see useBodyLogging). Read the returned stream instead of `source`;
 * backpressure and errors pass through.
 */
export function tapRequestBody(
  source: Readable,
  request: Pick<FastifyRequest, 'id' | 'method' | 'url' | 'headers'>,
  logger: Logger,
  mask?: TextMask,
): Readable {
  const chunks: Buffer[] = [];
  let size = 0;
  const copy = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size <= LOGGED_BODY_LIMIT) chunks.push(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      logger.debug({ ...describe(request), ...decode(chunks, size, request.headers['content-type'], mask) }, 'request body');
      callback();
    },
  });
  source.once('error', (error) => copy.destroy(error));
  return source.pipe(copy);
}

function decode(chunks: Buffer[], size: number, contentType: string | undefined, mask: TextMask | undefined): Record<string, unknown> {
  if (size === 0) return { body_bytes: 0 };
  if (size > LOGGED_BODY_LIMIT || !/json/i.test(contentType ?? '')) return { body_bytes: size, body_omitted: 'not JSON or too large to log' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks, size).toString('utf8'));
  } catch {
    return { body_bytes: size, body_omitted: 'not valid JSON' };
  }
  return { body: redactBody(parsed, mask) };
}
