import { isSensitiveParam, REDACTED } from '@svc/telemetry';
import { carriesSecretInPath, maskUrl } from './url-mask';

/**
 * Known secret values shorter than this are not searched for: they would mask ordinary words of the
 * text (and no credential of this service is that short).
 */
export const MIN_SCRUBBED_LENGTH = 8;

type Secret = string | null | undefined;

/**
 * `text` with every occurrence of each known secret replaced by `[REDACTED]`, as written,
 * percent-encoded (a key in a query string) and JSON-escaped (a key inside an echoed JSON string).
 * For text that came from elsewhere and may repeat what this service sent: a provider's error body
 * echoing the key it was called with, a webhook or team-chat receiver's error page echoing its URL.
 * Returns `text` itself when none occurs.
 */
export function scrubSecrets(text: string, secrets: readonly Secret[]): string {
  let out = text;
  // Longest first: a URL's path is replaced whole before the segments it contains.
  const sorted = secrets.filter((s): s is string => !!s && s.length >= MIN_SCRUBBED_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of sorted) {
    for (const form of new Set(secretForms(secret))) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/**
 * The forms in which `scrubSecrets` finds a secret: as written, percent-encoded and JSON-escaped.
 * For a cheap search before scrubbing (`Buffer#includes`, `String#includes`).
 */
export function secretForms(secret: string): string[] {
  return [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
}

/** Whether `text` contains one of `secrets` in a form `scrubSecrets` replaces. */
export function containsSecret(text: string, secrets: readonly Secret[]): boolean {
  return scrubSecrets(text, secrets) !== text;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The parts of an absolute URL that are credentials, for `scrubSecrets`: the user info (a password,
 * or a lone user name, which is then a token), the values of credential query parameters (`?key=`,
 * `?token=`, ...), and, for an incoming-webhook URL (`carriesSecretInPath`) or with `secretPath`
 * (a team-chat URL, whose path is its secret whatever the host), the path with its query and each
 * path segment of at least 8 characters. A string that is not a URL is returned as the one secret.
 */
export function secretsOfUrl(url: string, secretPath = false): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const secrets: string[] = [];
  for (const part of [parsed.username, parsed.password]) if (part) secrets.push(part, decoded(part));
  for (const [name, value] of parsed.searchParams) if (isSensitiveParam(name) && value) secrets.push(value);
  if (secretPath || carriesSecretInPath(parsed.host, parsed.pathname)) {
    secrets.push(url, `${parsed.pathname}${parsed.search}`);
    for (const segment of parsed.pathname.split('/')) if (segment.length >= MIN_SCRUBBED_LENGTH) secrets.push(segment, decoded(segment));
  }
  return secrets;
}

/** Absolute URLs inside free text: from the scheme to the first blank, quote or bracket. */
const EMBEDDED_URL = /[a-z][a-z\d+.-]{0,31}:\/\/[^\s"'<>`()[\]{}]+/gi;
/** Sentence punctuation right after a URL in text, which is not part of it. */
const TRAILING_PUNCTUATION = /[.,;:!?]+$/;

/**
 * Free text (an error message) with each URL in it masked as `maskUrl` masks a logged URL: user info
 * (`https://user:***@host`), credential query values (`?key=[REDACTED]`) and incoming-webhook paths.
 * undici's fetch, for one, names the whole URL in its errors. Returns `text` itself when nothing changed.
 */
export function scrubEmbeddedUrls(text: string): string {
  if (!text.includes('://')) return text;
  const out = text.replace(EMBEDDED_URL, (match) => {
    const tail = TRAILING_PUNCTUATION.exec(match)?.[0] ?? '';
    const url = match.slice(0, match.length - tail.length);
    return url.includes('//') ? maskUrl(url) + tail : match;
  });
  return out === text ? text : out;
}
