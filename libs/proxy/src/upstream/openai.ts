import { GatewayError } from '@svc/platform';
import { ProviderDefinition } from '../providers/types';
import { appendQuery, baseUrlOf, finalizeRequest, joinUrl, requireJsonObject, withUpstreamModel } from './request';
import { isJsonObject, JsonObject, UpstreamInput, PreparedUpstreamRequest } from './types';

/** Format-A paths below an A/D base URL (which already ends in `/v1` or the vendor's equivalent). */
export const OPENAI_PATHS = {
  chat: 'chat/completions',
  embeddings: 'embeddings',
} as const;

/** Paths whose streaming responses are format-A chunk streams that honour `stream_options`. */
const USAGE_STREAM_PATHS = /(^|\/)(chat\/)?completions$/;

/**
 * For a streaming format-A request, `stream_options.include_usage: true` so the last chunk carries
 * usage (SPEC.md). Other `stream_options` fields are kept. Providers marked `streamUsage: 'always'`
 * send usage unasked and reject unknown fields, so their body is left alone.
 */
export function withStreamUsage(body: JsonObject, provider: ProviderDefinition): JsonObject {
  if (body.stream !== true || provider.streamUsage !== 'inject') return body;
  const existing = isJsonObject(body.stream_options) ? body.stream_options : {};
  return { ...body, stream_options: { ...existing, include_usage: true } };
}

/** Whether the client itself asked for the usage chunk (it gets one from A/D either way once injected). */
export function clientWantsStreamUsage(body: unknown): boolean {
  return isJsonObject(body) && isJsonObject(body.stream_options) && body.stream_options.include_usage === true;
}

/** `POST {base}/chat/completions` for A and D providers. */
export function buildOpenAIChatRequest(input: UpstreamInput): PreparedUpstreamRequest {
  return buildOpenAIJsonRequest(input, OPENAI_PATHS.chat);
}

/** `POST {base}/embeddings` for providers with `embeddings: true`. */
export function buildOpenAIEmbeddingsRequest(input: UpstreamInput): PreparedUpstreamRequest {
  if (!input.provider.embeddings || input.provider.format !== 'openai') {
    throw new GatewayError(400, {
      message: `Provider '${input.provider.id}' does not serve embeddings through the gateway`,
      type: 'invalid_request_error',
      code: 'embeddings_not_supported',
      param: 'model',
    });
  }
  return buildOpenAIJsonRequest(input, OPENAI_PATHS.embeddings);
}

function buildOpenAIJsonRequest(input: UpstreamInput, path: string): PreparedUpstreamRequest {
  const original = requireJsonObject(input.body);
  const body = withStreamUsage(withUpstreamModel(original, input.upstreamModel), input.provider);
  // Nothing changed (same model, no usage to inject): the client's bytes go up as they came.
  const unchanged = input.rawBody !== undefined && body.model === original.model && body.stream_options === original.stream_options;
  return finalizeRequest({
    provider: input.provider,
    url: joinUrl(baseUrlOf(input), path),
    method: 'POST',
    apiKey: input.apiKey,
    clientHeaders: input.clientHeaders,
    body: unchanged ? { raw: input.rawBody as Buffer, contentType: 'application/json' } : { json: body },
    stream: body.stream === true,
  });
}

export interface PassthroughInput extends Omit<UpstreamInput, 'body'> {
  method: string;
  /** The `{path}` of `ANY /v1/{provider_d}/{path}`, relative to the provider's base URL. */
  path: string;
  /** The client's query string or parsed query; `api_key` is dropped. */
  query?: string | URLSearchParams | Readonly<Record<string, unknown>>;
  /**
   * A parsed JSON object (model rewritten, usage injected on chat paths) or raw bytes forwarded as
   * they came with the client's `content-type` (multipart uploads). Absent for GET/DELETE.
   */
  body?: unknown;
}

/** The D catch-all: any method and path below the provider's base URL. */
export function buildPassthroughRequest(input: PassthroughInput): PreparedUpstreamRequest {
  const method = input.method.toUpperCase();
  const url = joinUrl(baseUrlOf(input), input.path);
  appendQuery(url, input.query);
  let body: { json: unknown } | { raw: string | Uint8Array } | undefined;
  let stream = false;
  if (typeof input.body === 'string' || input.body instanceof Uint8Array) {
    body = { raw: input.body };
  } else if (isJsonObject(input.body)) {
    let json = withUpstreamModel(input.body, input.upstreamModel);
    if (USAGE_STREAM_PATHS.test(url.pathname)) json = withStreamUsage(json, input.provider);
    stream = json.stream === true;
    body = { json };
  } else if (input.body !== undefined && input.body !== null) {
    body = { json: input.body };
  }
  return finalizeRequest({
    provider: input.provider,
    url,
    method,
    apiKey: input.apiKey,
    clientHeaders: input.clientHeaders,
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
    stream,
  });
}
