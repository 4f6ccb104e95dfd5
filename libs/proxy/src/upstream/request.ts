import { invalidRequest } from '@svc/platform';
import { resolveBaseUrl } from '../providers/registry';
import { ProviderDefinition } from '../providers/types';
import { applyAuth, applyFixedHeaders, forwardClientHeaders, redactUrl } from './headers';
import { isJsonObject, JsonObject, UpstreamInput, PreparedUpstreamRequest } from './types';

/** Query parameters that carry gateway credentials and never go upstream. */
const GATEWAY_QUERY_PARAMS = new Set(['api_key']);

/**
 * `path` below the provider's base URL. Rejects dot segments (also percent-encoded), backslashes and
 * absolute URLs so a catch-all path cannot climb out of the base URL or reach another host.
 */
export function safeRelativePath(path: string): string {
  const trimmed = path.replace(/^\/+/, '');
  let decoded: string;
  try {
    decoded = decodeURIComponent(trimmed);
  } catch {
    throw invalidRequest(`Invalid upstream path '${path}'`, 'path');
  }
  const bad =
    decoded.includes('\\') ||
    /^[a-z][a-z0-9+.-]*:/i.test(decoded) ||
    decoded.split('/').some((segment) => segment === '.' || segment === '..') ||
    trimmed.includes('//');
  if (bad) throw invalidRequest(`Invalid upstream path '${path}'`, 'path');
  return trimmed;
}

/** `base` + `/` + `path` without URL resolution (a base path such as `/openai/v1` is kept). */
export function joinUrl(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}/${safeRelativePath(path)}`);
}

/** The base URL the input names, or the registry default. */
export function baseUrlOf(input: Pick<UpstreamInput, 'provider' | 'baseUrl'>): string {
  return (input.baseUrl ?? resolveBaseUrl(input.provider)).replace(/\/+$/, '');
}

/** Copies the client's query parameters (a catch-all route) minus the gateway's credential parameters. */
export function appendQuery(url: URL, query: string | URLSearchParams | Readonly<Record<string, unknown>> | undefined): void {
  if (query === undefined) return;
  const params =
    typeof query === 'string' || query instanceof URLSearchParams
      ? new URLSearchParams(query)
      : new URLSearchParams(
          Object.entries(query).flatMap(([k, v]) =>
            (Array.isArray(v) ? v : [v]).filter((x) => x !== undefined && x !== null).map((x) => [k, String(x)] as [string, string]),
          ),
        );
  for (const [name, value] of params) {
    if (!GATEWAY_QUERY_PARAMS.has(name) && name !== 'key') url.searchParams.append(name, value);
  }
}

/** A shallow copy of the body with its `model` replaced by the upstream model when it differs. */
export function withUpstreamModel(body: JsonObject, upstreamModel: string | undefined): JsonObject {
  if (upstreamModel === undefined || !('model' in body) || body.model === upstreamModel) return { ...body };
  return { ...body, model: upstreamModel };
}

export function requireJsonObject(body: unknown): JsonObject {
  if (!isJsonObject(body)) throw invalidRequest('The request body must be a JSON object');
  return body;
}

export interface FinalizeInput {
  provider: ProviderDefinition;
  url: URL;
  method: string;
  apiKey?: string;
  clientHeaders: UpstreamInput['clientHeaders'];
  /** A JSON value (serialized, `content-type: application/json`) or raw bytes passed through as they came. */
  body?: { json: unknown } | { raw: string | Uint8Array; contentType?: string };
  stream: boolean;
}

/**
 * The finished request: allowlisted client headers, the provider's fixed headers, its credential
 * and a recomputed `content-length`.
 */
export function finalizeRequest(input: FinalizeInput): PreparedUpstreamRequest {
  const headers = forwardClientHeaders(input.clientHeaders, input.provider);
  let body: string | Buffer | undefined;
  if (input.body && 'json' in input.body) {
    body = JSON.stringify(input.body.json);
    headers['content-type'] = 'application/json';
  } else if (input.body) {
    const raw = input.body.raw;
    if (input.body.contentType) headers['content-type'] = input.body.contentType;
    // A Buffer view over the same bytes (no copy), as the HTTP client takes Buffers.
    body = typeof raw === 'string' || Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  } else {
    delete headers['content-type'];
  }
  if (input.stream) headers.accept = 'text/event-stream';
  applyFixedHeaders(input.provider, headers);
  applyAuth(input.provider.auth, input.apiKey, headers, input.url);
  if (body !== undefined) {
    headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  }
  const url = input.url.toString();
  return {
    url,
    origin: input.url.origin,
    path: `${input.url.pathname}${input.url.search}`,
    method: input.method,
    headers,
    body,
    stream: input.stream,
    apiKey: input.apiKey,
    // Only logs need it: computed when read.
    get logUrl() {
      return redactUrl(url);
    },
  };
}
