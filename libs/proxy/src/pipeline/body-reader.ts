import type { Readable } from 'node:stream';
import { BODY_NOT_OBJECT_MESSAGE, GatewayError, invalidRequest, jsonSyntaxMessage, MAX_JSON_DEPTH, nestsDeeperThan, TOO_DEEP_MESSAGE } from '@svc/platform';

export interface ReadBody {
  buffer: Buffer;
  /** Bytes received; when `tooLarge`, the declared length or the bytes counted before stopping. */
  bytes: number;
  /** The body is over the limit: it was not (wholly) read, and stage 0.5 refuses the request. */
  tooLarge: boolean;
  /** `bytes` is the declared Content-Length (so the size of the refused body is known). */
  declared: boolean;
}

const EMPTY: ReadBody = Object.freeze({ buffer: Buffer.alloc(0), bytes: 0, tooLarge: false, declared: false });

/**
 * Reads a request body with a limit: the declared Content-Length is checked first, then the bytes
 * actually received are counted, so an oversized body is refused without being buffered.
 */
export function readBody(stream: Readable | undefined, contentLength: string | undefined, limit: number): Promise<ReadBody> {
  const declared = contentLength === undefined ? NaN : Number(contentLength);
  if (declared > limit) return Promise.resolve({ buffer: EMPTY.buffer, bytes: declared, tooLarge: true, declared: true });
  if (!stream || typeof stream.on !== 'function' || declared === 0) return Promise.resolve(EMPTY);
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
        resolve({ buffer: EMPTY.buffer, bytes: size, tooLarge: true, declared: false });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ buffer: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), bytes: size, tooLarge: false, declared: false });
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

/** Parses a JSON body of any kind; a body of another content type is a 415, an empty or malformed one a 400, in the gateway format. */
function parseJson(raw: Buffer, contentType: string | undefined): unknown {
  if (!contentType || !/^application\/(.+\+)?json/i.test(contentType)) {
    throw new GatewayError(415, {
      message: `Content-Type must be application/json (got ${contentType ?? 'none'})`,
      type: 'invalid_request_error',
      code: 'unsupported_media_type',
    });
  }
  if (raw.length === 0) throw invalidRequest('Body cannot be empty', null, 'invalid_json');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw invalidRequest(jsonSyntaxMessage(error), null, 'invalid_json');
  }
}

/** Parses a JSON object body; anything else is a 400 in the gateway format. */
export function parseJsonObject(raw: Buffer, contentType: string | undefined): Record<string, unknown> {
  const parsed = parseJson(raw, contentType);
  // Well-formed JSON that is not an object: docs/decisions.md's refusal of every surface, naming `body`.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidRequest(BODY_NOT_OBJECT_MESSAGE, 'body');
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) throw invalidRequest(TOO_DEEP_MESSAGE, null);
  return parsed as Record<string, unknown>;
}

/**
 * The parsed body of a proxy call. The chat, messages and embeddings routes take a JSON object
 * (`parseJsonObject`). The D catch-all forwards what the provider takes: any JSON value when the
 * body is JSON (an object, an array such as a batch of inputs, a string, a number, `null`), else
 * undefined (no body, a multipart upload, bytes), which it forwards as it came, unscanned. The PII
 * and safety stages read every string of a JSON body of the catch-all (governance's
 * `extractBodyTexts`), within the size limit and the depth checked here (docs/gateway-providers.md "Bodies").
 */
export function parseProxyBody(passthrough: boolean, raw: Buffer, contentType: string | undefined): unknown {
  if (!passthrough) return parseJsonObject(raw, contentType);
  if (raw.length === 0 || !/json/i.test(contentType ?? '')) return undefined;
  const parsed = parseJson(raw, contentType);
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) throw invalidRequest(TOO_DEEP_MESSAGE, null);
  return parsed;
}
