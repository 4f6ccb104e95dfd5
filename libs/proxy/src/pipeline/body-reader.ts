import type { Readable } from 'node:stream';
import { GatewayError, invalidRequest } from '@svc/platform';

const MB = 1024 * 1024;

export function requestTooLarge(limit: number): GatewayError {
  const mb = Math.round((limit / MB) * 100) / 100;
  return new GatewayError(
    413,
    {
      message: `Request body exceeds the maximum size of ${limit} bytes (${mb} MB)`,
      type: 'invalid_request_error',
      code: 'request_too_large',
      remediation: 'Send a smaller request (split the input), or ask an admin to raise the body-size limit in the policy.',
    },
    { Connection: 'close' },
  );
}

/**
 * Reads a request body with a limit: the declared Content-Length is checked first, then the bytes
 * actually received are counted, so an oversized body is refused without being buffered.
 */
export function readBody(stream: Readable | undefined, contentLength: string | undefined, limit: number): Promise<Buffer> {
  if (contentLength !== undefined && Number(contentLength) > limit) return Promise.reject(requestTooLarge(limit));
  if (!stream || typeof stream.on !== 'function') return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop reading without destroying the socket: the 413 is written, then the connection closes.
        cleanup();
        stream.pause();
        reject(requestTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

/** Parses a JSON object body; anything else is a 400 in the gateway format. */
export function parseJsonObject(raw: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (!contentType || !/^application\/(.+\+)?json/i.test(contentType)) {
    throw new GatewayError(415, {
      message: `Content-Type must be application/json (got ${contentType ?? 'none'})`,
      type: 'invalid_request_error',
      code: 'unsupported_media_type',
    });
  }
  if (raw.length === 0) throw invalidRequest('Body cannot be empty', null, 'invalid_json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw invalidRequest(`Body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidRequest('Body must be a JSON object', null, 'invalid_json');
  return parsed as Record<string, unknown>;
}
