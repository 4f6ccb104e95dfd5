/**
 * Binary answers of OpenAI-compatible providers (`POST …/audio/speech`, `GET …/files/{id}/content`):
 * fixed bytes that are not valid UTF-8, so a test can tell a byte-exact relay from one that decoded
 * and re-encoded the body as text.
 */
import { openaiError } from './errors';
import { checkKey, header, sendJson, type Exchange } from './exchange';

/**
 * What the binary routes answer: bytes that break UTF-8 in several ways (a NUL, bytes that never
 * occur in UTF-8, a lone continuation byte, a truncated sequence, an encoded surrogate), then every
 * byte value from 255 down to 0.
 */
export const MOCK_BINARY_BYTES: Buffer = Buffer.concat([
  Buffer.from([0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xe2, 0x82]),
  Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)),
]);

/** `audio/mpeg` for speech (what OpenAI sends by default), `application/octet-stream` for file contents. */
export function binaryContentType(path: string): string {
  return path.endsWith('/audio/speech') ? 'audio/mpeg' : 'application/octet-stream';
}

export function handleBinary(ex: Exchange): void {
  const auth = header(ex, 'authorization');
  const key = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim())?.[1]?.trim() : undefined;
  if (checkKey(ex.settings, key) !== 'ok') {
    sendJson(ex, 401, openaiError(401, 'Incorrect or missing API key.', { code: 'invalid_api_key' }));
    return;
  }
  ex.res.writeHead(200, { 'content-type': binaryContentType(ex.path), 'content-length': MOCK_BINARY_BYTES.length, ...ex.headers });
  ex.res.end(MOCK_BINARY_BYTES);
}
