import type { DiscoveredModelInput, ProviderTargetKind } from '@svc/domain';
import { checkOutboundUrl, HostLookupTimeoutError, HostResolver, OutboundBlockedError } from '@svc/platform';
import { Dispatcher, request } from 'undici';

/** Why a discovery exchange failed (the run is recorded as failed with the message). */
export type DiscoveryFailure = 'redirect' | 'timeout' | 'lookup_timeout' | 'too_large' | 'http_status' | 'invalid_response' | 'network';

export class DiscoveryError extends Error {
  constructor(
    readonly failure: DiscoveryFailure,
    message: string,
  ) {
    super(message);
    this.name = 'DiscoveryError';
  }
}

export interface FetchOptions {
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`. */
  allowPrivate: boolean;
  /** Deadline of one exchange: the host lookup, connect, headers and body. */
  timeoutMs: number;
  /** Largest response body read. */
  maxBytes: number;
  /** `createOutboundAgent` with `resolve`: checks the resolved address again when the socket connects. */
  dispatcher: Dispatcher;
  /**
   * Resolves the host for the check before the call (`outboundResolver`: c-ares, cut at the
   * deadline), the resolver the dispatcher connects with.
   */
  resolve: HostResolver;
}

/** Most model ids kept from one response. */
export const MAX_MODELS = 10_000;
const MODEL_ID = /^[\x21-\x7e][\x20-\x7e]{0,255}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

/** Model ids of an OpenAI list (`{data: [{id, owned_by}]}`) or an Ollama tags list (`{models: [{name}]}`). */
export function parseModelList(kind: ProviderTargetKind, body: unknown): DiscoveredModelInput[] {
  const entries = kind === 'ollama' ? (isObject(body) ? body['models'] : undefined) : Array.isArray(body) ? body : isObject(body) ? body['data'] : undefined;
  if (!Array.isArray(entries)) {
    throw new DiscoveryError('invalid_response', kind === 'ollama' ? 'The response has no "models" list (expected Ollama /api/tags)' : 'The response has no "data" list (expected an OpenAI model list)');
  }
  const models = new Map<string, DiscoveredModelInput>();
  for (const entry of entries) {
    if (models.size >= MAX_MODELS) break;
    if (!isObject(entry)) continue;
    const id = kind === 'ollama' ? (entry['name'] ?? entry['model']) : entry['id'];
    if (typeof id !== 'string' || !MODEL_ID.test(id) || models.has(id)) continue;
    const details = isObject(entry['details']) ? entry['details'] : {};
    models.set(id, {
      model_id: id,
      owned_by: typeof entry['owned_by'] === 'string' ? entry['owned_by'].slice(0, 256) : kind === 'ollama' ? 'ollama' : null,
      context_window: positiveInt(entry['context_window']) ?? positiveInt(entry['context_length']) ?? positiveInt(details['context_length']),
    });
  }
  return [...models.values()];
}

async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) throw new DiscoveryError('too_large', `The model list is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function failureOf(error: unknown, timeoutMs: number): Error {
  const lookupTimeout = lookupTimeoutOf(error);
  if (lookupTimeout) return new DiscoveryError('lookup_timeout', `${lookupTimeout}; its name servers did not answer`);
  if (error instanceof OutboundBlockedError || error instanceof DiscoveryError) return error;
  const name = (error as { name?: string })?.name;
  const code = (error as { code?: string })?.code;
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new DiscoveryError('timeout', `The target did not answer within ${timeoutMs} ms`);
  }
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof OutboundBlockedError) return cause;
  return new DiscoveryError('network', `Could not reach the target (${code ?? name ?? 'connection error'})`);
}

/**
 * The message of a host lookup that ran out of its deadline: the check before the call
 * (`lookup_timeout`) or the lookup at connect time (HostLookupTimeoutError, also as a cause).
 */
function lookupTimeoutOf(error: unknown): string | null {
  if (error instanceof OutboundBlockedError) return error.reason === 'lookup_timeout' ? error.message : null;
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    if (current instanceof HostLookupTimeoutError) return current.message;
  }
  return null;
}

/**
 * One GET: the URL checked first (scheme, credentials, every resolved address), no redirects
 * followed, a size cap, and one deadline from the host lookup to the end of the body.
 */
async function getJson(url: string, headers: Record<string, string>, options: FetchOptions): Promise<{ status: number; body: unknown }> {
  const started = performance.now();
  const { allowPrivate, resolve, timeoutMs } = options;
  try {
    await checkOutboundUrl(url, { allowPrivate, allowHttp: true, resolve, timeoutMs });
  } catch (error) {
    throw failureOf(error, timeoutMs);
  }
  const signal = AbortSignal.timeout(Math.max(1, Math.round(timeoutMs - (performance.now() - started))));
  try {
    const response = await request(url, {
      method: 'GET',
      headers,
      dispatcher: options.dispatcher,
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const { statusCode } = response;
    if (statusCode >= 300 && statusCode < 400) {
      await response.body.dump();
      const location = String(response.headers['location'] ?? '');
      throw new DiscoveryError('redirect', `The target answered ${statusCode} (redirect${location ? ` to ${location.slice(0, 200)}` : ''}); redirects are not followed`);
    }
    if (statusCode < 200 || statusCode >= 300) {
      await response.body.dump();
      return { status: statusCode, body: null };
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      response.body.destroy();
      throw new DiscoveryError('too_large', `The model list is larger than ${options.maxBytes} bytes`);
    }
    const text = await readCapped(response.body, options.maxBytes);
    try {
      return { status: statusCode, body: JSON.parse(text) };
    } catch {
      throw new DiscoveryError('invalid_response', 'The model list is not JSON');
    }
  } catch (error) {
    throw failureOf(error, options.timeoutMs);
  }
}

/**
 * Asks the target for its models at each URL in turn (a 404 moves to the next one): Ollama's
 * `/api/tags`, or an OpenAI-compatible `/v1/models` then `/models`. Throws OutboundBlockedError
 * for a refused destination and DiscoveryError for everything else.
 */
export async function fetchModelList(
  kind: ProviderTargetKind,
  urls: readonly string[],
  headers: Record<string, string>,
  options: FetchOptions,
): Promise<{ url: string; models: DiscoveredModelInput[] }> {
  let last: { url: string; status: number } | null = null;
  for (const url of urls) {
    const { status, body } = await getJson(url, headers, options);
    if (status >= 200 && status < 300) return { url, models: parseModelList(kind, body) };
    last = { url, status };
    if (status !== 404) break;
  }
  throw new DiscoveryError('http_status', `The target answered ${last?.status ?? 'nothing'} on ${last?.url ?? 'its model list'}`);
}
