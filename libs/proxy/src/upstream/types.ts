import type { HeaderBag } from '@svc/auth';
import { ProviderDefinition } from '../providers/types';

/**
 * A request ready for the HTTP client: the caller adds the deadline (AbortSignal) and the breaker.
 * Structurally a transport `UpstreamRequest` (`url`, `method`, `headers`, `body`) plus routing facts.
 */
export interface PreparedUpstreamRequest {
  url: string;
  /** `url`'s origin and path with query, as the HTTP client takes them (parsed once). */
  origin?: string;
  path?: string;
  method: string;
  /** Lower-case names; `content-length` is set for bodies. */
  headers: Record<string, string>;
  body?: string | Buffer;
  /** True when the response is an SSE stream. */
  stream: boolean;
  /** `url` with a query-string key masked, for logs. */
  logUrl: string;
  /**
   * The provider key this request carries (in a header or the query), absent for keyless
   * providers: what the answer relayed to the client is scrubbed of (`scrubSecrets`).
   */
  apiKey?: string;
}

/** What every builder needs from the incoming request and the route. */
export interface UpstreamInput {
  provider: ProviderDefinition;
  /** `resolveBaseUrl(provider, config.providerBaseUrls)`; defaults to the registry's base URL. */
  baseUrl?: string;
  /** The resolved provider key; absent for keyless self-hosted providers. */
  apiKey?: string;
  clientHeaders: HeaderBag;
  /** The parsed JSON body (a passthrough object: unknown fields are kept). */
  body: unknown;
  /** The body's bytes as the client sent them: forwarded as they are when nothing in the body changes. */
  rawBody?: Buffer;
  /** `Route.upstreamModel`: replaces `body.model` when it differs (alias or `provider/` prefix). */
  upstreamModel?: string;
}

/** A JSON object body as the gateway sees it: forward-compatible, only the read fields are typed. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
