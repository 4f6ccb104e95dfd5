import { randomBytes } from 'node:crypto';
import { GatewayErrorBody } from '@svc/platform';
import {
  ChatCompletion,
  GeminiCandidate,
  GeminiErrorBody,
  GeminiGenerateContentResponse,
  GeminiLogprobsCandidate,
  GeminiLogprobsResult,
  GeminiPart,
  GeminiUsageMetadata,
  OpenAIChoiceLogprobs,
  OpenAIFinishReason,
  OpenAITokenLogprob,
  OpenAIToolCall,
  OpenAIUsage,
} from './gemini-types';
import { isJsonObject } from './types';

/** Options shared by the response and stream translators (injectable for deterministic tests). */
export interface GeminiTranslationOptions {
  /** The model name to report when Gemini sends no `modelVersion`. */
  model: string;
  /** Unix seconds; defaults to now. */
  created?: number;
  /** Makes ids: `chatcmpl-...`, `call_...`. Defaults to random hex. */
  newId?: (prefix: 'chatcmpl-' | 'call_') => string;
}

export const defaultNewId = (prefix: string): string => `${prefix}${randomBytes(12).toString('hex')}`;

/** A tool-call id the gateway made (`defaultNewId('call_')`) because Gemini's call carried none. */
export const isGatewayCallId = (id: string): boolean => /^call_[0-9a-f]{24}$/.test(id);

const tokenLogprob = (c: GeminiLogprobsCandidate): OpenAITokenLogprob => {
  const token = c.token ?? '';
  return { token, logprob: c.logProbability ?? 0, bytes: [...Buffer.from(token, 'utf8')] };
};

/**
 * A candidate's `logprobsResult` → format A's `logprobs.content`: one entry per decoding step, its
 * `top_logprobs` from the step's `topCandidates` (empty when `top_logprobs` was not asked for).
 * Null when Gemini sent none (the client did not ask, or the model gives none).
 */
export function mapLogprobs(result: GeminiLogprobsResult | undefined): OpenAIChoiceLogprobs | null {
  const chosen = result?.chosenCandidates;
  if (!Array.isArray(chosen)) return null;
  const top = result?.topCandidates ?? [];
  return {
    content: chosen.map((c, step) => ({ ...tokenLogprob(c), top_logprobs: (top[step]?.candidates ?? []).map(tokenLogprob) })),
    refusal: null,
  };
}

const FINISH_REASONS: Record<string, OpenAIFinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
};

/**
 * Gemini `finishReason` → format A. A candidate that called functions finishes with `tool_calls`;
 * unknown reasons (OTHER, LANGUAGE, MALFORMED_FUNCTION_CALL...) map to `stop`.
 */
export function mapFinishReason(reason: string | undefined, calledTools: boolean): OpenAIFinishReason | null {
  if (!reason || reason === 'FINISH_REASON_UNSPECIFIED') return null;
  const mapped = FINISH_REASONS[reason] ?? 'stop';
  return mapped === 'stop' && calledTools ? 'tool_calls' : mapped;
}

/** Answer text of the parts (thought summaries are not part of the answer). */
function partsText(parts: readonly GeminiPart[]): string {
  return parts
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('');
}

/** Google's OpenAI-compatible endpoint puts thought summaries in `content`, between these tags. */
export const THOUGHT_OPEN = '<thought>';
export const THOUGHT_CLOSE = '</thought>';

/**
 * A candidate's `content`: its thought summaries (Gemini sends them only when asked for with
 * `include_thoughts`) between `<thought>` tags, then the answer text, as Google's OpenAI-compatible
 * endpoint answers.
 */
export function partsContent(parts: readonly GeminiPart[]): string {
  const thoughts = parts
    .filter((p) => typeof p.text === 'string' && p.thought)
    .map((p) => p.text)
    .join('');
  const text = partsText(parts);
  return thoughts ? `${THOUGHT_OPEN}${thoughts}${THOUGHT_CLOSE}${text}` : text;
}

/** Function-call parts → format-A tool calls; Gemini's thought signature rides in `extra_content.google`. */
export function partsToolCalls(parts: readonly GeminiPart[], newId: (prefix: 'call_') => string): OpenAIToolCall[] {
  return parts
    .filter((p) => p.functionCall)
    .map((p) => {
      const call = p.functionCall as NonNullable<GeminiPart['functionCall']>;
      const toolCall: OpenAIToolCall & { extra_content?: unknown } = {
        id: call.id ?? newId('call_'),
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      };
      if (p.thoughtSignature) toolCall.extra_content = { google: { thought_signature: p.thoughtSignature } };
      return toolCall;
    });
}

/**
 * `usageMetadata` → format-A usage. Thinking tokens are billed as output, so they count toward
 * `completion_tokens` (and `completion_tokens_details.reasoning_tokens`), as OpenAI reports reasoning.
 * The prompt's audio tokens not read from the cache (`promptTokensDetails` less `cacheTokensDetails`,
 * modality `AUDIO`) are `prompt_tokens_details.audio_tokens`, priced at the model's audio input price.
 */
export function mapUsage(usage: GeminiUsageMetadata | undefined): OpenAIUsage | undefined {
  if (!usage) return undefined;
  const prompt = (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0);
  const reasoning = usage.thoughtsTokenCount ?? 0;
  const completion = (usage.candidatesTokenCount ?? 0) + reasoning;
  const mapped: OpenAIUsage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: usage.totalTokenCount ?? prompt + completion,
  };
  const audio = Math.max(0, modalityTokens(usage.promptTokensDetails, 'AUDIO') - modalityTokens(usage.cacheTokensDetails, 'AUDIO'));
  if (usage.cachedContentTokenCount || audio) {
    mapped.prompt_tokens_details = {
      ...(usage.cachedContentTokenCount ? { cached_tokens: usage.cachedContentTokenCount } : {}),
      ...(audio ? { audio_tokens: audio } : {}),
    };
  }
  if (reasoning) mapped.completion_tokens_details = { reasoning_tokens: reasoning };
  return mapped;
}

/** The tokens a `*TokensDetails` list counts for `modality` (0 for a list that is absent or malformed). */
function modalityTokens(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  let total = 0;
  for (const entry of details) {
    const count = isJsonObject(entry) && entry.modality === modality ? entry.tokenCount : undefined;
    if (typeof count === 'number' && Number.isFinite(count) && count > 0) total += count;
  }
  return total;
}

function candidateIndex(candidate: GeminiCandidate, position: number): number {
  return typeof candidate.index === 'number' ? candidate.index : position;
}

/** A non-streaming generate-content response → a format-A `chat.completion`. */
export function fromGeminiResponse(response: GeminiGenerateContentResponse, options: GeminiTranslationOptions): ChatCompletion {
  const newId = options.newId ?? defaultNewId;
  const candidates = response.candidates ?? [];
  const choices: ChatCompletion['choices'] = candidates.map((candidate, position) => {
    const parts = candidate.content?.parts ?? [];
    const toolCalls = partsToolCalls(parts, newId);
    const text = partsContent(parts);
    return {
      index: candidateIndex(candidate, position),
      message: {
        role: 'assistant',
        content: text === '' && toolCalls.length ? null : text,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        refusal: null,
      },
      finish_reason: mapFinishReason(candidate.finishReason, toolCalls.length > 0) ?? 'stop',
      ...(candidate.finishReason ? { native_finish_reason: candidate.finishReason } : {}),
      logprobs: mapLogprobs(candidate.logprobsResult),
    };
  });
  const blockReason = response.promptFeedback?.blockReason;
  if (!choices.length && blockReason) {
    // The prompt itself was blocked: no candidates at all.
    choices.push({ index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', native_finish_reason: blockReason, logprobs: null });
  } else if (!choices.length) {
    // No candidates and no block reason (Gemini's empty turn): a format-A answer always has a choice,
    // and clients read `choices[0]`; an empty one says the model answered nothing.
    choices.push({ index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'stop', logprobs: null });
  }
  const completion: ChatCompletion = {
    id: response.responseId ? `chatcmpl-${response.responseId}` : newId('chatcmpl-'),
    object: 'chat.completion',
    created: options.created ?? Math.floor(Date.now() / 1000),
    model: response.modelVersion ?? options.model,
    choices,
  };
  const usage = mapUsage(response.usageMetadata);
  if (usage) completion.usage = usage;
  return completion;
}

/**
 * A whole Gemini answer as received (status, parsed JSON or undefined, raw text) → what the format-A
 * client gets. An error is translated whatever its body (a proxy's HTML or plain-text 5xx too); a
 * success that is not a generate-content object is 502 `upstream_invalid_response`, never relayed
 * as if it were a chat completion.
 */
export function translateGeminiAnswer(status: number, parsed: unknown, raw: string, options: GeminiTranslationOptions): { status: number; body: unknown; retryAfterSeconds?: number } {
  if (status >= 400) return fromGeminiError(status, parsed !== undefined ? parsed : raw.trim().slice(0, 1000));
  if (!isJsonObject(parsed)) {
    return {
      status: 502,
      body: {
        error: {
          message: `The provider answered HTTP ${status} with a body that is not a generate-content response`,
          type: 'api_error',
          param: null,
          code: 'upstream_invalid_response',
        },
      },
    };
  }
  return { status, body: fromGeminiResponse(parsed as GeminiGenerateContentResponse, options) };
}

const ERROR_TYPES: Record<string, { type: string; code: string; status?: number }> = {
  INVALID_ARGUMENT: { type: 'invalid_request_error', code: 'invalid_request' },
  FAILED_PRECONDITION: { type: 'invalid_request_error', code: 'failed_precondition' },
  OUT_OF_RANGE: { type: 'invalid_request_error', code: 'invalid_request' },
  UNAUTHENTICATED: { type: 'authentication_error', code: 'invalid_api_key', status: 401 },
  PERMISSION_DENIED: { type: 'permission_error', code: 'permission_denied' },
  NOT_FOUND: { type: 'not_found_error', code: 'model_not_found' },
  RESOURCE_EXHAUSTED: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  CANCELLED: { type: 'api_error', code: 'cancelled' },
  DEADLINE_EXCEEDED: { type: 'api_error', code: 'timeout' },
  UNAVAILABLE: { type: 'api_error', code: 'service_unavailable' },
  INTERNAL: { type: 'api_error', code: 'internal_error' },
};

export interface TranslatedError {
  status: number;
  body: { error: GatewayErrorBody };
  /** Gemini's `RetryInfo.retryDelay` in whole seconds (rounded up), for a `retry-after` header. */
  retryAfterSeconds?: number;
}

/**
 * A Gemini error body (`{error: {code, message, status, details}}`, possibly wrapped in an array)
 * → the format-A error shape. An invalid API key (400 `API_KEY_INVALID`) becomes 401
 * `authentication_error`, as format-A clients expect.
 */
export function fromGeminiError(status: number, body: unknown): TranslatedError {
  const first = Array.isArray(body) ? body[0] : body;
  const error = isJsonObject(first) && isJsonObject(first.error) ? (first as GeminiErrorBody).error ?? {} : {};
  const grpcStatus = typeof error.status === 'string' ? error.status : undefined;
  const keyInvalid = (error.details ?? []).some((d) => isJsonObject(d) && d.reason === 'API_KEY_INVALID');
  const known = keyInvalid ? ERROR_TYPES.UNAUTHENTICATED : grpcStatus ? ERROR_TYPES[grpcStatus] : undefined;
  const fallbackType = status >= 500 ? 'api_error' : status === 429 ? 'rate_limit_error' : 'invalid_request_error';
  const message =
    typeof error.message === 'string' && error.message
      ? error.message
      : typeof first === 'string' && first
        ? first
        : `Upstream provider returned HTTP ${status}`;
  const retryAfterSeconds = retryDelaySeconds(error.details);
  return {
    status: known?.status ?? status,
    body: {
      error: {
        message,
        type: known?.type ?? fallbackType,
        param: null,
        code: known?.code ?? (grpcStatus ? grpcStatus.toLowerCase() : `upstream_${status}`),
      },
    },
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  };
}

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * The `retryDelay` of a `google.rpc.RetryInfo` among an error's details, in whole seconds rounded
 * up: a protobuf Duration in JSON (`"17s"`, `"0.5s"`, `"38.804097346s"`). Gemini sends it with its
 * 429 `RESOURCE_EXHAUSTED` in the body only, where a format-A client (which retries by
 * `retry-after`) does not look.
 */
export function retryDelaySeconds(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isJsonObject(detail) || detail['@type'] !== RETRY_INFO || typeof detail.retryDelay !== 'string') continue;
    const match = /^(\d{1,9})(?:\.(\d{1,9}))?s$/.exec(detail.retryDelay.trim());
    if (!match) return undefined;
    return Math.ceil(Number(`${match[1]}.${match[2] ?? '0'}`));
  }
  return undefined;
}
