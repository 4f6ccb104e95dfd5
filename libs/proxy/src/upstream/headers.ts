import type { HeaderBag } from '@svc/auth';
import { ProviderAuthForm, ProviderDefinition } from '../providers/types';

/**
 * Client headers forwarded to every upstream, on top of the provider's own `forwardHeaders`
 * (`openai-organization`, `anthropic-beta`, OpenRouter's `http-referer`...). Everything else is dropped:
 * cookies, client IPs (`x-forwarded-*`), `accept-encoding` (the gateway reads the body to meter usage),
 * SDK telemetry (`x-stainless-*`), `idempotency-key` (the gateway's own feature).
 * `content-type` is forwarded only for raw pass-through bodies; JSON bodies get `application/json`.
 */
export const FORWARDED_CLIENT_HEADERS: readonly string[] = ['accept', 'user-agent', 'content-type'];

/** RFC 9110 §7.6.1 connection-specific headers, plus framing headers recomputed for the new request. */
export const HOP_BY_HOP_HEADERS: readonly string[] = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
];

/** The gateway's own credentials and metadata: never sent upstream, whatever an allowlist says. */
const GATEWAY_ONLY = /^(x-svc-|x-gateway-|x-provider-key$|authorization$|x-api-key$|cookie$|x-runner-proof$|idempotency-key$)/;

/**
 * Upstream response headers that would be wrong or unsafe on the gateway's response: cookies and
 * encodings of the provider's host, policies of its origin (HSTS, CORS, `alt-svc`), every `Proxy-*`
 * header (they speak of the hop between the gateway and a proxy in front of the provider:
 * `Proxy-Authenticate`, `Proxy-Authentication-Info`, `Proxy-Status`), and the names
 * the gateway sets itself (`X-SVC-*`, `X-Gateway-*`, SPEC.md's `X-RateLimit-Limit/-Remaining/-Reset`,
 * `Idempotent-Replayed`), so a provider never speaks for the gateway even where it set none.
 */
const RESPONSE_DROPPED =
  /^(set-cookie$|content-encoding$|alt-svc$|strict-transport-security$|access-control-|proxy-|x-svc-|x-gateway-|x-ratelimit-(limit|remaining|reset)$|idempotent-replayed$)/;

export type OutgoingHeaders = Record<string, string>;

/** Names listed in the request's `Connection` header are hop-by-hop too (RFC 9110 §7.6.1). */
function connectionNominated(raw: string | readonly string[] | undefined): ReadonlySet<string> {
  // Nearly every message says only `keep-alive` or `close`, both hop-by-hop already: no set to build.
  if (raw === undefined || (typeof raw === 'string' && PLAIN_CONNECTION.test(raw))) return NOTHING_NOMINATED;
  const values = typeof raw === 'string' ? [raw] : raw;
  return new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim().toLowerCase()).filter(Boolean));
}

const PLAIN_CONNECTION = /^\s*(keep-alive|close)\s*$/i;
const NOTHING_NOMINATED: ReadonlySet<string> = new Set();

const ALWAYS_FORWARDED: ReadonlySet<string> = new Set(FORWARDED_CLIENT_HEADERS);
/** The client headers forwarded to each built-in provider (their definitions are fixed at start). */
const allowedByProvider = new WeakMap<ProviderDefinition, ReadonlySet<string>>();

function allowedClientHeaders(provider: ProviderDefinition): ReadonlySet<string> {
  if (provider.forwardHeaders.length === 0) return ALWAYS_FORWARDED;
  let allowed = allowedByProvider.get(provider);
  if (!allowed) {
    allowed = new Set([...FORWARDED_CLIENT_HEADERS, ...provider.forwardHeaders.map((h) => h.toLowerCase())]);
    if (!provider.dynamic) allowedByProvider.set(provider, allowed);
  }
  return allowed;
}

/**
 * The client headers allowed through to `provider`: the allowlist, minus hop-by-hop headers,
 * minus the gateway's own headers. Names come out lower-case; repeated values are joined with `, `.
 */
export function forwardClientHeaders(clientHeaders: HeaderBag, provider: ProviderDefinition): OutgoingHeaders {
  const allowed = allowedClientHeaders(provider);
  const nominated = connectionNominated(clientHeaders.connection);
  const out: OutgoingHeaders = {};
  for (const [rawName, rawValue] of Object.entries(clientHeaders)) {
    const name = rawName.toLowerCase();
    if (!allowed.has(name) || HOP_BY_HOP_HEADERS.includes(name) || nominated.has(name) || GATEWAY_ONLY.test(name)) continue;
    const value = typeof rawValue === 'string' ? rawValue : rawValue?.join(', ');
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/** Adds the provider credential in its form: bearer header, `x-api-key` header or `key` query parameter. */
export function applyAuth(auth: ProviderAuthForm, apiKey: string | undefined, headers: OutgoingHeaders, url: URL): void {
  if (!apiKey) return;
  if (auth === 'bearer') headers.authorization = `Bearer ${apiKey}`;
  else if (auth === 'x-api-key') headers['x-api-key'] = apiKey;
  else url.searchParams.set('key', apiKey);
}

/** The provider's fixed headers (for example `anthropic-version: 2023-06-01`) replace any client value. */
export function applyFixedHeaders(provider: ProviderDefinition, headers: OutgoingHeaders): void {
  for (const [name, value] of Object.entries(provider.headers)) headers[name.toLowerCase()] = value;
}

/**
 * Upstream response headers worth passing to the client (request ids, vendor rate-limit and
 * processing headers, `retry-after`, `x-should-retry`): hop-by-hop and framing headers (those the
 * response's `Connection` names too), cookies, `content-encoding`, origin policies and names the
 * gateway sets itself are dropped. The same set goes out on whole answers, streams and replays.
 */
export function forwardResponseHeaders(upstream: HeaderBag | Headers): OutgoingHeaders {
  const entries: [string, string | readonly string[] | undefined][] =
    typeof (upstream as Headers).forEach === 'function' && typeof (upstream as Headers).get === 'function'
      ? [...(upstream as Headers).entries()]
      : Object.entries(upstream as HeaderBag);
  const nominated = connectionNominated(entries.find(([name]) => name.toLowerCase() === 'connection')?.[1]);
  const out: OutgoingHeaders = {};
  for (const [rawName, rawValue] of entries) {
    const name = rawName.toLowerCase();
    if (HOP_BY_HOP_HEADERS.includes(name) || nominated.has(name) || RESPONSE_DROPPED.test(name)) continue;
    const value = typeof rawValue === 'string' ? rawValue : rawValue?.join(', ');
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The URL with the `key` query parameter masked, for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.searchParams.has('key')) parsed.searchParams.set('key', '***');
    return parsed.toString();
  } catch {
    return url.replace(/([?&]key=)[^&]*/g, '$1***');
  }
}
