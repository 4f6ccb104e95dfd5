import { invalidRequest } from '@svc/platform';

/**
 * What an HTTP header value carries as written: tab, space and visible ASCII. A line break, a
 * control character or a non-ASCII character cannot go out in a header (undici refuses it).
 */
const HEADER_SAFE = /^[\t\x20-\x7e]*$/;

export function isHeaderSafe(value: string): boolean {
  return HEADER_SAFE.test(value);
}

/**
 * A stored credential (a provider secret, a target's `api_key`) is sent upstream in a header on every
 * proxied call: one that no header can carry would fail each of them as an upstream error, so it is
 * refused when it is stored (400 `invalid_request` naming the field).
 */
export function assertHeaderSafeKey(value: string, param: string): void {
  if (!isHeaderSafe(value)) {
    throw invalidRequest(`${param} must be printable ASCII (no line breaks, control or non-ASCII characters): it is sent to the provider in an HTTP header`, param);
  }
}
