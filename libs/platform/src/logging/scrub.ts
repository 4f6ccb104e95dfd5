import { isSensitiveParam, REDACTED } from '@svc/telemetry';
import { carriesSecretInPath, maskUrl } from './url-mask';

/**
 * Known secret values shorter than this are not searched for: one to three characters cannot be told
 * from the text around them (`a`, `ok`, `no`), and the replacements would themselves show the value.
 */
export const MIN_SCRUBBED_LENGTH = 4;

/**
 * Secrets at least this long are replaced wherever they occur. Shorter ones (4 to 7 characters: a
 * self-hosted server's `hunter2`, a placeholder such as `EMPTY`) only where they stand as a whole
 * token, between characters that are not letters, digits, `_` or `-`: a key `mini` is not cut out of
 * `gpt-4o-mini`, nor `abcd` out of `abcdef`. A short value that reads as a bare JSON token (`true`,
 * `false`, `null`, a number) is not searched for: replacing it would break the JSON it stands in.
 */
export const MIN_SUBSTRING_SCRUBBED_LENGTH = 8;

const BARE_JSON_TOKEN = /^(?:true|false|null|-?[\d.eE+-]+)$/;

type Secret = string | null | undefined;

/** Whether a secret is long enough to be searched for (`MIN_SCRUBBED_LENGTH`, `BARE_JSON_TOKEN`). */
export function isScrubbable(secret: Secret): secret is string {
  if (!secret || secret.length < MIN_SCRUBBED_LENGTH) return false;
  return secret.length >= MIN_SUBSTRING_SCRUBBED_LENGTH || !BARE_JSON_TOKEN.test(secret);
}

/**
 * `text` with every occurrence of each known secret replaced by `[REDACTED]`, as written,
 * percent-encoded (a key in a query string) and JSON-escaped (a key inside an echoed JSON string);
 * a secret under 8 characters only as a whole token (`MIN_SUBSTRING_SCRUBBED_LENGTH`).
 * For text that came from elsewhere and may repeat what this service sent: a provider's error body
 * echoing the key it was called with, a webhook or team-chat receiver's error page echoing its URL.
 * Returns `text` itself when none occurs.
 */
export function scrubSecrets(text: string, secrets: readonly Secret[]): string {
  let out = text;
  // Longest first: a URL's path is replaced whole before the segments it contains.
  const sorted = secrets.filter(isScrubbable).sort((a, b) => b.length - a.length);
  for (const secret of sorted) {
    const whole = secret.length < MIN_SUBSTRING_SCRUBBED_LENGTH;
    for (const form of new Set(secretForms(secret))) {
      if (!out.includes(form)) continue;
      out = whole ? replaceTokens(out, form) : out.split(form).join(REDACTED);
    }
  }
  return out;
}

/** `text` with each occurrence of `token` that stands alone (`isTokenChar` on neither side) replaced. */
function replaceTokens(text: string, token: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(token); at !== -1; ) {
    const end = at + token.length;
    if (isTokenChar(text.charCodeAt(at - 1)) || isTokenChar(text.charCodeAt(end))) {
      at = text.indexOf(token, at + 1);
      continue;
    }
    out += text.slice(from, at) + REDACTED;
    from = end;
    at = text.indexOf(token, end);
  }
  return from === 0 ? text : out + text.slice(from);
}

/** A letter, digit, `_` or `-` (NaN, past either end of the text, is not). */
function isTokenChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45;
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
    for (const segment of parsed.pathname.split('/')) if (segment.length >= MIN_SUBSTRING_SCRUBBED_LENGTH) secrets.push(segment, decoded(segment));
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
