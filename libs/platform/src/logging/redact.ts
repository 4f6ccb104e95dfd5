import { redactUrl } from '@svc/telemetry';

export const CENSOR = '[REDACTED]';

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
/** String fields holding a URL or request target: their credential query values are masked. */
const URL_KEYS = new Set(['url', 'originalurl', 'href', 'path', 'target', 'location', 'referer', 'referrer', 'baseurl']);
const MAX_DEPTH = 8;

export function isSensitiveLogKey(key: string): boolean {
  return SENSITIVE.has(normalize(key));
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

function redactIn(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || seen.has(value) || !(Array.isArray(value) || isWalkable(value))) {
    return value;
  }
  seen.add(value);
  let copy: Record<string, unknown> | null = null;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  if (value instanceof Error && 'cause' in value && !keys.includes('cause')) keys.push('cause');
  for (const key of keys) {
    const current = source[key];
    let next = current;
    if (!Array.isArray(value) && isSensitiveLogKey(key)) {
      if (current !== undefined && current !== null) next = CENSOR;
    } else if (typeof current === 'string') {
      if (URL_KEYS.has(key.toLowerCase()) && current.includes('?')) next = redactUrl(current);
    } else {
      next = redactIn(current, depth + 1, seen);
    }
    if (next !== current) {
      copy ??= cloneOf(source);
      copy[key] = next;
    }
  }
  return copy ?? value;
}

/**
 * Returns `value` with every credential replaced by `[REDACTED]`, at any depth (up to 8 levels) and
 * in any letter case: header maps (`headers.Authorization`, `req.headers["X-Provider-Key"]`), bodies
 * (`plaintext_key`, `password`, `refresh_token`), errors and arrays. Credential query values in
 * URL-like fields (`url`, `path`, ...) are masked. Objects are copied only where something is
 * replaced, so a log line without secrets costs one walk and no allocation; the input is never changed.
 */
export function redactSecrets<T>(value: T): T {
  return redactIn(value, 0, new WeakSet()) as T;
}
