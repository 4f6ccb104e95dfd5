import { carriesSecretInPath, redactQuery } from '@svc/telemetry';

// Shared with the trace exporter's URL attributes (@svc/telemetry cannot import this library).
export { carriesSecretInPath };

/**
 * A string that starts like an absolute URL with an authority (`https://`, `wss://`, `redis://`,
 * `mongodb+srv://`). Anchored and bounded, so a string that is not a URL (a header value, a prompt)
 * is rejected within its first few characters: this test runs on every string of every log line.
 */
const ABSOLUTE_URL = /^[a-z][a-z\d+.-]{0,31}:\/\//i;

/** Masked parts of a URL the masked URL still shows the last characters of, like the API's `url_hint`. */
const HINT_CHARS = 4;
const HINT_MIN_LENGTH = 12;

/** The path of a URL this module masked: `/…` and the hint. */
const ALREADY_MASKED = new RegExp(`^/…[^/?#]{0,${HINT_CHARS}}$`);

export const MASKED = '***';

/** True when `value` is an absolute URL `maskUrl` looks into. */
export function isAbsoluteUrl(value: string): boolean {
  return ABSOLUTE_URL.test(value);
}

function authorityEnd(url: string, from: number): number {
  for (let i = from; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f /* / */ || c === 0x3f /* ? */ || c === 0x23 /* # */ || c === 0x5c /* \ */) return i;
  }
  return url.length;
}

function maskUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(':');
  // `https://<token>@host`: without a password the user name itself is the credential.
  return colon < 0 ? MASKED : `${userinfo.slice(0, colon)}:${MASKED}`;
}

function maskQueryAndFragment(rest: string): string {
  const hash = rest.indexOf('#');
  const beforeHash = hash < 0 ? rest : rest.slice(0, hash);
  const fragment = hash < 0 ? '' : `#${redactQuery(rest.slice(hash + 1))}`;
  const mark = beforeHash.indexOf('?');
  return mark < 0 ? beforeHash + fragment : `${beforeHash.slice(0, mark)}?${redactQuery(beforeHash.slice(mark + 1))}${fragment}`;
}

/**
 * An absolute URL safe to log, or `url` itself when nothing in it is a credential:
 * - user info is masked: `https://user:secret@host/x` → `https://user:***@host/x`, `https://token@host` → `https://***@host`;
 * - a path that is a credential (incoming-webhook URLs, see `carriesSecretInPath`; every path when
 *   `everyPath`) is masked with its query and fragment, keeping scheme and host like the API's
 *   `url_hint`: `https://hooks.slack.com/services/T0/B0/abcdefgh1234` → `https://hooks.slack.com/…1234`;
 * - otherwise credential query (and fragment) values are masked, as `redactUrl` does: `?key=[REDACTED]`.
 * `url` must pass `isAbsoluteUrl`.
 */
export function maskUrl(url: string, everyPath = false): string {
  const start = url.indexOf('//') + 2;
  const end = authorityEnd(url, start);
  const authority = url.slice(start, end);
  const at = authority.lastIndexOf('@');
  const host = at < 0 ? authority : authority.slice(at + 1);
  const origin = at < 0 ? url.slice(0, end) : `${url.slice(0, start)}${maskUserinfo(authority.slice(0, at))}@${host}`;
  const rest = url.slice(end);
  if (rest.length > 1 && !ALREADY_MASKED.test(rest) && (everyPath || carriesSecretInPath(host, rest))) {
    return `${origin}/…${rest.length >= HINT_MIN_LENGTH ? url.slice(-HINT_CHARS) : ''}`;
  }
  const hasQuery = rest.includes('?') || rest.includes('#');
  if (at < 0 && !hasQuery) return url;
  const masked = origin + (hasQuery ? maskQueryAndFragment(rest) : rest);
  return masked === url ? url : masked;
}
