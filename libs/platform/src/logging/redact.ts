import { redactUrl } from '@svc/telemetry';
import { scrubEmbeddedUrls } from './scrub';
import { isAbsoluteUrl, maskUrl } from './url-mask';

export const CENSOR = '[REDACTED]';
/** What an object or array nested deeper than the walk goes is logged as, instead of its content. */
export const TRUNCATED = '[TRUNCATED]';
/** What a reference back to an object being walked (a cycle) is logged as. */
export const CIRCULAR = '[Circular]';

/**
 * Field names whose values never reach a log line, compared case-insensitively with `-` and `_`
 * ignored: `Authorization`, `authorization` and `AUTHORIZATION` are one name, as are `X-SVC-API-Key`,
 * `x-svc-api-key` and `x_svc_api_key`.
 */
export const SENSITIVE_LOG_KEYS: readonly string[] = [
  'authorization', 'proxy-authorization', 'cookie', 'set-cookie',
  'x-svc-api-key', 'x-provider-key', 'x-api-key', 'api-key', 'x-runner-proof', 'x-goog-api-key',
  'api_key', 'apikey', 'key', 'plaintext_key', 'provider_key', 'private_key', 'secret_key',
  'secret', 'client_secret', 'webhook_secret', 'signing_secret', 'jwt_secret', 'master_encryption_key',
  'password', 'passwd', 'current_password', 'new_password', 'old_password',
  'token', 'access_token', 'refresh_token', 'id_token', 'session_token', 'bootstrap_token',
];

const normalize = (key: string) => key.toLowerCase().replace(/[-_]/g, '');
const SENSITIVE = new Set(SENSITIVE_LOG_KEYS.map(normalize));
/**
 * Endings (of the normalized name) that mark a credential whatever comes before them: `auth_token`,
 * `api_token`, `X-Auth-Token`, `x-access-token`, `aws_session_token`, `secret_access_key`,
 * `admin_password`, `app_secret`, `credentials`. Never a counter: `input_tokens`, `max_tokens` end
 * with `tokens`, and `key_id` / `token_hash` end otherwise.
 */
const SENSITIVE_ENDINGS = ['token', 'secret', 'password', 'passwd', 'apikey', 'accesskey', 'secretkey', 'privatekey', 'credential', 'credentials'];
/** String fields holding a URL or request target: their credential query values are masked. */
const URL_KEYS = new Set(['url', 'originalurl', 'href', 'path', 'target', 'location', 'referer', 'referrer', 'baseurl']);
/** String fields holding error text: URLs inside them are masked (`scrubEmbeddedUrls`). */
const ERROR_TEXT_KEYS = new Set(['error', 'reason', 'message', 'trace', 'stack', 'detail', 'lasterror', 'failedreason']);
const MAX_DEPTH = 8;

export function isSensitiveLogKey(key: string): boolean {
  const name = normalize(key);
  return SENSITIVE.has(name) || SENSITIVE_ENDINGS.some((ending) => name.endsWith(ending));
}

function isWalkable(value: object): boolean {
  if (value instanceof Error) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function cloneOf<T extends object>(value: T): T {
  if (Array.isArray(value)) return value.slice() as T;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(value) as object | null) as T, value);
  if (value instanceof Error) {
    // message, stack and cause are own but not enumerable: keep them on the copy for the err serializer.
    for (const name of ['message', 'stack', 'cause'] as const) {
      const descriptor = Object.getOwnPropertyDescriptor(value, name);
      if (descriptor) Object.defineProperty(copy, name, descriptor);
    }
  }
  return copy;
}

const WALKING = Symbol('walking');

/** Per walk: what each object already met became (or `WALKING` while its own walk is under way). */
type Seen = Map<object, unknown>;

/**
 * Masks the personal data in a logged text (`LOG_BODIES`): the gateway wires in the stage 4 PII
 * detectors' `maskPii` (libs/governance), which this library may not import.
 */
export type TextMask = (text: string) => string;

function redactString(key: string, value: string, everyPath: boolean): string {
  if (isAbsoluteUrl(value)) return maskUrl(value, everyPath);
  if (value.includes('?') && URL_KEYS.has(key.toLowerCase())) return redactUrl(value);
  if (ERROR_TEXT_KEYS.has(normalize(key))) return scrubEmbeddedUrls(value);
  return value;
}

function redactIn(value: unknown, depth: number, seen: Seen, everyPath: boolean, mask?: TextMask): unknown {
  if (value === null || typeof value !== 'object') return value;
  const known = seen.get(value);
  // An object met twice is logged the same way twice: pino would print the second one as is.
  if (known !== undefined) return known === WALKING ? CIRCULAR : known;
  if (depth > MAX_DEPTH) return TRUNCATED;
  // A URL object is logged as its href (toJSON): masked like a URL string.
  if (value instanceof URL) return maskUrl(value.href, everyPath);
  if (!(Array.isArray(value) || isWalkable(value))) return value;
  seen.set(value, WALKING);
  let copy: Record<string, unknown> | null = null;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  if (value instanceof Error) {
    for (const own of ['cause', 'errors'] as const) if (own in value && !keys.includes(own)) keys.push(own);
    copy = scrubErrorText(value);
  }
  for (const key of keys) {
    const current = source[key];
    let next = current;
    if (!Array.isArray(value) && isSensitiveLogKey(key)) {
      if (current !== undefined && current !== null) next = CENSOR;
    } else if (typeof current === 'string') {
      next = redactString(key, current, everyPath);
      if (mask) next = mask(next as string);
    } else {
      next = redactIn(current, depth + 1, seen, everyPath, mask);
    }
    if (next !== current) {
      copy ??= cloneOf(source);
      copy[key] = next;
    }
  }
  const result = copy ?? value;
  seen.set(value, result);
  return result;
}

/**
 * A copy of `error` whose message (and the message inside its stack) has the URLs in it masked
 * (`scrubEmbeddedUrls`: user info, credential query values), or null when there are none to mask.
 */
function scrubErrorText(error: Error): Record<string, unknown> | null {
  const message = typeof error.message === 'string' ? error.message : '';
  const scrubbed = scrubEmbeddedUrls(message);
  if (scrubbed === message) return null;
  const copy = cloneOf(error as unknown as Record<string, unknown>);
  Object.defineProperty(copy, 'message', { value: scrubbed, writable: true, configurable: true, enumerable: false });
  if (typeof error.stack === 'string') {
    Object.defineProperty(copy, 'stack', { value: error.stack.split(message).join(scrubbed), writable: true, configurable: true, enumerable: false });
  }
  return copy;
}

/**
 * Returns `value` with every credential replaced by `[REDACTED]`, at any depth and in any letter
 * case: header maps (`headers.Authorization`, `req.headers["X-Provider-Key"]`), bodies
 * (`plaintext_key`, `password`, `refresh_token`), errors and arrays. Objects nested deeper than 8
 * levels are logged as `[TRUNCATED]` and cycles as `[Circular]`, never as they are. Credential query
 * values in URL-like fields (`url`, `path`, ...) are masked; in any string that is an absolute URL,
 * user info (`https://user:***@host`) and the path of an incoming-webhook URL
 * (`https://hooks.slack.com/…1234`) are masked too (see `maskUrl`). Objects are copied only where
 * something is replaced, so a log line without secrets costs one walk and no copy; the input is never changed.
 */
export function redactSecrets<T>(value: T): T {
  return redactIn(value, 0, new Map(), false) as T;
}

/**
 * `redactSecrets` for a request body logged by `LOG_BODIES`, which also masks the path (with query
 * and fragment) of every absolute URL, keeping scheme and host: a body cannot tell which URL carries
 * its secret in the path (a team-chat incoming webhook on any host, a signed link), so none is logged
 * whole. `{url: "https://chat.example.com/services/T0/B0/secret1234"}` → `"https://chat.example.com/…1234"`.
 * With `mask`, every string value (at any depth, array items included) also goes through it, after
 * the URL masking: `LOG_BODIES` masks personal data in prompts and names this way (`TextMask`).
 */
export function redactBody<T>(body: T, mask?: TextMask): T {
  if (typeof body === 'string') {
    const text = isAbsoluteUrl(body) ? maskUrl(body, true) : body;
    return (mask ? mask(text) : text) as T;
  }
  return redactIn(body, 0, new Map(), true, mask) as T;
}
