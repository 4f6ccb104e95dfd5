import { GatewayError, invalidRequest } from '@svc/platform';
import type { ProviderDefinition } from '../providers';
import { isJsonObject } from '../upstream/types';

export type ProxyKind = 'chat' | 'messages' | 'embeddings' | 'passthrough';

/** The body format of a proxy call: B (`anthropic`) on the messages routes, A (`openai`) on every other. */
export function formatOf(kind: ProxyKind): 'openai' | 'anthropic' {
  return kind === 'messages' ? 'anthropic' : 'openai';
}

/** What the gateway reads of a body; everything else passes through untouched (forward-compatible). */
export interface ReadFields {
  model: string;
  stream: boolean;
}

const AGENT = /^[\x20-\x7e]{1,120}$/;

/**
 * Validates the fields that choose the route (SPEC.md request tables): the body, `model`, `stream`
 * (format A: `null` is not streaming).
 * The rest of the body is checked by `checkFields` once the route is known to serve the call.
 */
export function readFields(kind: ProxyKind, body: unknown): ReadFields {
  if (kind === 'passthrough') {
    // Any JSON value (or none): only an object names a model or asks to stream.
    const fields = isJsonObject(body) ? body : undefined;
    const model = typeof fields?.model === 'string' ? fields.model : '';
    return { model, stream: fields?.stream === true };
  }
  if (!isJsonObject(body)) throw invalidRequest('A JSON body is required', null);
  if (typeof body.model !== 'string' || body.model.trim() === '') throw invalidRequest('`model` is required and must be a string', 'model');
  // Format A's API takes `stream: null` (not streaming), as it does the nullable fields of `checkFields`;
  // format B's takes a boolean only. The body goes up as sent either way.
  const unset = body.stream === undefined || (formatOf(kind) === 'openai' && body.stream === null);
  if (!unset && typeof body.stream !== 'boolean') throw invalidRequest('`stream` must be a boolean', 'stream');
  return { model: body.model, stream: body.stream === true };
}

/**
 * 400 `unsupported_endpoint` when `provider` does not serve the route (the messages routes only B
 * providers, the embeddings routes only providers with embeddings), else undefined. Checked before
 * the body's own fields (on `/v1/embeddings`, once `model` has chosen the provider): a client learns
 * that the route is wrong, not what its body would need there.
 */
export function unservedRoute(kind: ProxyKind, provider: ProviderDefinition): GatewayError | undefined {
  if (kind === 'messages' && provider.format !== 'anthropic') return unsupportedEndpoint(provider.id, 'the messages format');
  if (kind === 'embeddings' && !provider.embeddings) return unsupportedEndpoint(provider.id, 'embeddings');
  return undefined;
}

/** Validates the other fields the gateway itself reads, per route kind, on a body `readFields` accepted. */
export function checkFields(kind: ProxyKind, body: unknown, format: ReturnType<typeof formatOf>): void {
  if (kind === 'passthrough' || !isJsonObject(body)) return;
  if (kind === 'embeddings') {
    const input = body.input;
    const ok = typeof input === 'string' || (Array.isArray(input) && input.length > 0);
    if (!ok) throw invalidRequest('`input` is required: a string or a non-empty array', 'input');
    return;
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalidRequest('`messages` is required and must be a non-empty array', 'messages');
  body.messages.forEach((message, index) => {
    if (typeof message !== 'object' || message === null || typeof (message as { role?: unknown }).role !== 'string') {
      throw invalidRequest(`messages[${index}] must be an object with a string \`role\``, `messages[${index}].role`);
    }
  });
  // Format A's API takes `null` for these (the OpenAI SDK sends `temperature: null` when asked to):
  // the same as leaving them out, which is how the cost estimate reads them too (4096 max output tokens).
  const unset = (field: string) => body[field] === undefined || (format === 'openai' && body[field] === null);
  if (!unset('max_tokens')) checkTokenLimit(body, 'max_tokens');
  if (format === 'openai' && !unset('max_completion_tokens')) checkTokenLimit(body, 'max_completion_tokens');
  if (format === 'anthropic') {
    if (body.max_tokens === undefined) throw invalidRequest('`max_tokens` is required', 'max_tokens');
    if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) {
      throw invalidRequest('`system` must be a string or an array of content blocks', 'system');
    }
  } else if (!unset('temperature') && !(typeof body.temperature === 'number' && body.temperature >= 0 && body.temperature <= 2)) {
    throw invalidRequest('`temperature` must be a number between 0 and 2', 'temperature');
  }
}

/** The largest output-token limit accepted (2^31 - 1): larger values only make the cost estimate meaningless. */
export const MAX_OUTPUT_TOKENS = 2_147_483_647;

/** `max_tokens` / `max_completion_tokens`, which the cost estimate reads, when sent: an integer from 1 to MAX_OUTPUT_TOKENS. */
function checkTokenLimit(body: Record<string, unknown>, field: 'max_tokens' | 'max_completion_tokens'): void {
  const value = body[field];
  if (!(Number.isInteger(value) && (value as number) > 0 && (value as number) <= MAX_OUTPUT_TOKENS)) {
    throw invalidRequest(`\`${field}\` must be a positive integer of at most ${MAX_OUTPUT_TOKENS}`, field);
  }
}

/** `X-SVC-Agent` (1–120 printable characters) or the API key's name. */
export function agentName(header: string | string[] | undefined, keyName: string | null): string {
  if (header === undefined) return keyName ?? 'unknown';
  const value = Array.isArray(header) ? header[0] : header;
  if (!AGENT.test(value)) throw invalidRequest('X-SVC-Agent must be 1 to 120 printable ASCII characters', 'X-SVC-Agent');
  return value;
}

/**
 * `X-SVC-HITL-Bypass: true` asks to skip the HITL gate (governance decides: stage 1.5 refuses it on
 * plans without the feature, stage 6 honours it only for callers with `admin:write`).
 */
export function hitlBypassRequested(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && value.trim().toLowerCase() === 'true';
}

/** `X-Runner-ID`, `X-Session-ID`, `X-Runner-Proof`, when all three are present. */
export function runnerHeaders(headers: Record<string, string | string[] | undefined>): { runnerId: string; sessionId: string; proof: string } | null {
  const one = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' && value ? value : undefined;
  };
  const runnerId = one('x-runner-id');
  const sessionId = one('x-session-id');
  const proof = one('x-runner-proof');
  return runnerId && sessionId && proof ? { runnerId, sessionId, proof } : null;
}

export function unsupportedEndpoint(provider: string, what: string): GatewayError {
  return new GatewayError(400, {
    message: `${provider} does not offer ${what} through the gateway`,
    type: 'invalid_request_error',
    code: 'unsupported_endpoint',
  });
}

/**
 * A refusal the official SDKs would retry by its status (429) although no retry within their
 * lifetime can pass: the plan's daily quota, whose Retry-After runs to midnight UTC. The OpenAI and
 * the Anthropic SDK both obey `x-should-retry: false` before their status rules, instead of
 * sleeping for hours.
 */
export function noRetryHelps(error: unknown): boolean {
  return error instanceof GatewayError && error.status === 429 && error.body.code === 'plan_limit_exceeded';
}
