import { GatewayError } from '@svc/platform';

/**
 * Gateway key prefixes (SPEC.md "Gateway key"). Order matters: the runner prefix and the specific
 * prefixes are tried before the generic `svc_`.
 */
export const RUNNER_TOKEN_PREFIX = 'svc_rt_';
export const GATEWAY_KEY_PREFIXES: readonly string[] = ['svc_sk_', 'svc_gw_', 'svc-gw-', 'svcgw_', 'svc_'];

/**
 * Earlier beta prefixes (the "live and test variants"), rejected by the gateway. They start with
 * the accepted `svc_`, so they are checked first; a token carrying one is never forwarded upstream
 * as a provider key either.
 */
export const RETIRED_KEY_PREFIXES: readonly string[] = ['svc_live_', 'svc_test_'];

export type GatewayKeyKind = 'gateway' | 'runner' | 'retired';

/** Where a credential was found. */
export type CredentialLocation = 'x-svc-api-key' | 'authorization' | 'x-api-key' | 'query' | 'x-provider-key';

/** The gateway key locations, for messages (SPEC.md: the 401 names them). */
export const GATEWAY_KEY_LOCATIONS =
  'the X-SVC-API-Key header, Authorization: Bearer <API_KEY>, or the api_key query parameter';

/** The gateway key locations of the B routes, which read `x-api-key` too (`readXApiKey`), in priority order. */
export const GATEWAY_KEY_LOCATIONS_WITH_X_API_KEY =
  'the X-SVC-API-Key header, Authorization: Bearer <API_KEY>, the x-api-key header, or the api_key query parameter';

/** The kind of gateway token by prefix, or undefined when the token has no gateway prefix. */
export function classifyGatewayToken(token: string): GatewayKeyKind | undefined {
  if (RETIRED_KEY_PREFIXES.some((p) => token.startsWith(p))) return 'retired';
  if (token.startsWith(RUNNER_TOKEN_PREFIX)) return 'runner';
  if (GATEWAY_KEY_PREFIXES.some((p) => token.startsWith(p))) return 'gateway';
  return undefined;
}

export function hasGatewayPrefix(token: string): boolean {
  return classifyGatewayToken(token) !== undefined;
}

/** Fastify's `request.headers` (lower-case names) or any bag of the same shape. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface CredentialsInput {
  headers: HeaderBag;
  /** The parsed query string; only `api_key` is read. */
  query?: Readonly<Record<string, unknown>>;
  /**
   * B routes (`/v1/messages`, `/v1/anthropic/...`): an incoming `x-api-key` is read like an
   * `Authorization: Bearer` token (gateway prefix → gateway key, anything else → provider key).
   */
  readXApiKey?: boolean;
  /**
   * Every `Authorization` value in arrival order, when the request sent more than one (Node keeps
   * only the first in `headers`): a gateway key and a provider key may both come as Bearer tokens.
   */
  authorization?: readonly string[];
}

export interface GatewayKeyCredential {
  value: string;
  location: Exclude<CredentialLocation, 'x-provider-key'>;
  kind: Exclude<GatewayKeyKind, 'retired'>;
}

export interface RequestCredentials {
  gatewayKey?: GatewayKeyCredential;
  /** The provider key the client sent: `X-Provider-Key`, else a non-gateway bearer (or `x-api-key` on B routes). */
  providerKeyFromRequest?: string;
  providerKeyLocation?: Extract<CredentialLocation, 'x-provider-key' | 'authorization' | 'x-api-key'>;
}

/**
 * Reads the gateway key and the client-supplied provider key, in SPEC.md's priority order:
 * gateway key from `X-SVC-API-Key`, then a gateway-prefixed `Authorization: Bearer`, then (B routes)
 * a gateway-prefixed `x-api-key`, then `api_key` in the query. Throws 401 when the chosen gateway key
 * has a retired beta prefix; a missing gateway key is left to the caller (`missingGatewayKey()`).
 */
export function parseCredentials(input: CredentialsInput): RequestCredentials {
  // With two Bearer tokens, the one with a gateway prefix is the gateway key and the other the provider key.
  // They may come as two header lines or as one (`Bearer a, Bearer b`: fetch and proxies join a repeated header).
  const authorization = header(input.headers, 'authorization');
  const bearers =
    input.authorization && input.authorization.length > 1
      ? input.authorization.flatMap(bearerTokens)
      : authorization?.includes(',')
        ? bearerTokens(authorization)
        : [bearerToken(authorization)];
  const gatewayBearer = bearers.find((token) => token !== undefined && hasGatewayPrefix(token));
  const providerBearer = bearers.find((token) => token !== undefined && !hasGatewayPrefix(token));
  const xApiKey = input.readXApiKey ? header(input.headers, 'x-api-key') : undefined;
  const queryKey = typeof input.query?.api_key === 'string' ? input.query.api_key.trim() : undefined;

  const candidates: { value: string | undefined; location: GatewayKeyCredential['location']; needsPrefix: boolean }[] = [
    { value: header(input.headers, 'x-svc-api-key'), location: 'x-svc-api-key', needsPrefix: false },
    { value: gatewayBearer, location: 'authorization', needsPrefix: true },
    { value: xApiKey, location: 'x-api-key', needsPrefix: true },
    { value: queryKey || undefined, location: 'query', needsPrefix: false },
  ];
  let gatewayKey: GatewayKeyCredential | undefined;
  for (const candidate of candidates) {
    if (!candidate.value) continue;
    const kind = classifyGatewayToken(candidate.value);
    if (candidate.needsPrefix && !kind) continue;
    if (kind === 'retired') throw retiredKey(candidate.value);
    // A dedicated location (X-SVC-API-Key, api_key) holding no gateway key at all is malformed.
    if (!kind) throw malformedGatewayKey(candidate.location);
    gatewayKey = { value: candidate.value, location: candidate.location, kind };
    break;
  }

  const result: RequestCredentials = gatewayKey ? { gatewayKey } : {};
  const explicit = header(input.headers, 'x-provider-key');
  if (explicit) {
    if (hasGatewayPrefix(explicit)) throw gatewayKeyAsProviderKey();
    return { ...result, providerKeyFromRequest: explicit, providerKeyLocation: 'x-provider-key' };
  }
  if (providerBearer) return { ...result, providerKeyFromRequest: providerBearer, providerKeyLocation: 'authorization' };
  if (xApiKey && !hasGatewayPrefix(xApiKey)) {
    return { ...result, providerKeyFromRequest: xApiKey, providerKeyLocation: 'x-api-key' };
  }
  return result;
}

/** Appended to the 401 for a missing gateway key when the Authorization bearer is a JWT (SPEC.md "Dashboard JWT fallback": admin endpoints only). */
export const DASHBOARD_TOKEN_HINT =
  'The Authorization bearer looks like a dashboard login token (JWT): the gateway accepts one on /gateway/admin only; ' +
  'this route needs a gateway key (create one with POST /api/v1/platform/api-keys or in the dashboard).';

/** Three base64url parts: the shape of a JWT, neither decoded nor verified. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * 401 GW_AUTH_001 for a request without a gateway key; the message names the locations accepted
 * there (`readXApiKey`: a B route, where `x-api-key` is one). `headers`: the request's, read only
 * here, on the refusal: a Bearer token shaped like a JWT (a dashboard login token) adds a hint.
 */
export function missingGatewayKey(options: { readXApiKey?: boolean; headers?: HeaderBag } = {}): GatewayError {
  const locations = options.readXApiKey ? GATEWAY_KEY_LOCATIONS_WITH_X_API_KEY : GATEWAY_KEY_LOCATIONS;
  const authorization = options.headers ? header(options.headers, 'authorization') : undefined;
  const dashboardToken = authorization !== undefined && bearerTokens(authorization).some((token) => token !== undefined && JWT_SHAPE.test(token));
  return new GatewayError(401, {
    message: `Missing gateway API key. Send it in ${locations}.${dashboardToken ? ` ${DASHBOARD_TOKEN_HINT}` : ''}`,
    type: 'authentication_error',
    code: 'invalid_api_key',
    gateway_error_code: 'GW_AUTH_001',
  });
}

/** 401 GW_AUTH_001 for a value in X-SVC-API-Key or api_key that has no gateway key prefix. */
function malformedGatewayKey(location: GatewayKeyCredential['location']): GatewayError {
  const where = location === 'query' ? 'The api_key query parameter' : 'The X-SVC-API-Key header';
  return new GatewayError(401, {
    message: `${where} does not hold a gateway key: gateway keys start with ${GATEWAY_KEY_PREFIXES.join(', ')} (runner tokens with ${RUNNER_TOKEN_PREFIX}).`,
    type: 'authentication_error',
    code: 'invalid_api_key',
    gateway_error_code: 'GW_AUTH_001',
    remediation: 'Send the gateway key there, and a provider key (if any) in X-Provider-Key.',
  });
}

/** A gateway key in X-Provider-Key would go upstream to the provider: refused before anything is sent. */
function gatewayKeyAsProviderKey(): GatewayError {
  return new GatewayError(401, {
    message: 'X-Provider-Key holds a gateway key (it has a gateway key prefix); the gateway never sends its own keys to a provider.',
    type: 'authentication_error',
    code: 'invalid_provider_key',
    param: 'X-Provider-Key',
    remediation: "Send the gateway key in X-SVC-API-Key and the provider's own key in X-Provider-Key, or store the provider key with POST /gateway/admin/secrets.",
  });
}

function retiredKey(value: string): GatewayError {
  const prefix = RETIRED_KEY_PREFIXES.find((p) => value.startsWith(p)) ?? 'beta';
  return new GatewayError(401, {
    message: `Gateway keys with the beta prefix '${prefix}' are no longer accepted. Create a new key (prefix svc_sk_).`,
    type: 'authentication_error',
    code: 'invalid_api_key',
    gateway_error_code: 'GW_AUTH_001',
    remediation: 'Create a key with POST /api/v1/platform/api-keys or in the dashboard and send it in the X-SVC-API-Key header.',
  });
}

export type ProviderKeySource = 'request' | 'stored_secret' | 'environment';

export interface ResolvedProviderKey {
  key: string;
  source: ProviderKeySource;
}

export interface ResolveProviderKeyInput {
  /** The provider id, for the error message. */
  provider: string;
  /** `RequestCredentials.providerKeyFromRequest` (priorities 1 and 2). */
  fromRequest?: string;
  /** The organization's stored secret (priority 3); called only when the request carries no key. */
  storedSecret?: () => Promise<string | undefined>;
  /** The deployment's `<PROVIDER>_API_KEY` (priority 4), from `AppConfig.providerApiKeys`. */
  envKey?: string;
  /** For providers that run without a key (`requiresKey: false`): resolve to undefined instead of a 401. */
  optional?: boolean;
}

/**
 * The upstream key in SPEC.md's order: request (`X-Provider-Key`, then a non-gateway bearer),
 * stored organization secret, deployment environment. Nothing → 401 `missing_provider_key`.
 */
export function resolveProviderKey(input: ResolveProviderKeyInput & { optional: true }): Promise<ResolvedProviderKey | undefined>;
export function resolveProviderKey(input: ResolveProviderKeyInput): Promise<ResolvedProviderKey>;
export async function resolveProviderKey(input: ResolveProviderKeyInput): Promise<ResolvedProviderKey | undefined> {
  if (input.fromRequest) return { key: input.fromRequest, source: 'request' };
  const stored = input.storedSecret ? await input.storedSecret() : undefined;
  if (stored) return { key: stored, source: 'stored_secret' };
  if (input.envKey) return { key: input.envKey, source: 'environment' };
  if (input.optional) return undefined;
  throw missingProviderKey(input.provider);
}

export function missingProviderKey(provider: string): GatewayError {
  const envName = `${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`;
  return new GatewayError(401, {
    message: `No API key for provider '${provider}' was found in the request, the organization's stored secrets or the deployment.`,
    type: 'authentication_error',
    code: 'missing_provider_key',
    remediation:
      `Send the provider key in the X-Provider-Key header (or Authorization: Bearer <PROVIDER_KEY>), ` +
      `store it once with POST /gateway/admin/secrets {"provider": "${provider}", "plaintext_key": "..."}, ` +
      `or set ${envName} on a self-hosted deployment.`,
  });
}

/** Every value of the `Authorization` header in Node's `rawHeaders`, when there is more than one; else undefined. */
export function repeatedAuthorization(rawHeaders: readonly string[]): string[] | undefined {
  let values: string[] | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 13 && name.toLowerCase() === 'authorization') (values ??= []).push(rawHeaders[i + 1]);
  }
  return values && values.length > 1 ? values : undefined;
}

/** The first value of a header, trimmed; undefined when absent or empty. */
export function header(headers: HeaderBag, name: string): string | undefined {
  const lower = name.toLowerCase();
  let raw = headers[lower];
  if (raw === undefined) {
    // Node's headers are lower-case already; other bags may not be. Cheap length check first.
    for (const key in headers) {
      if (key.length === lower.length && key.toLowerCase() === lower) {
        raw = headers[key];
        break;
      }
    }
  }
  const value = typeof raw === 'string' ? raw : raw?.[0];
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The Bearer tokens of one Authorization value, which may join several with commas (a token never holds one). */
function bearerTokens(authorization: string): (string | undefined)[] {
  return authorization.split(',').map((part) => bearerToken(part.trim()));
}

function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return match ? match[1] : undefined;
}
