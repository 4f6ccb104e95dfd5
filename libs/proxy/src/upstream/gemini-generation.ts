import { invalidRequest } from '@svc/platform';
import type { GoogleExtras } from './gemini-google-extras';
import { GeminiGenerationConfig, GeminiThinkingConfig } from './gemini-types';
import { isJsonObject, JsonObject } from './types';

/**
 * A numeric field of the body: absent or `null` is unset (the OpenAI SDK sends `null` for a caller's
 * `null`); any other value that is not a (whole, for `integer`) number is refused, as OpenAI refuses
 * it, instead of being dropped from the translation without a word.
 */
function numberField(body: JsonObject, name: string, integer = false): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw invalidRequest(`\`${name}\` must be ${integer ? 'an integer' : 'a number'}`, name);
  }
  return value;
}

/** `stop`: a string or a list of strings (`null` is unset). */
function stopSequences(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return stop;
  throw invalidRequest('`stop` must be a string or an array of strings', 'stop');
}

const RESPONSE_FORMATS: ReadonlySet<unknown> = new Set(['text', 'json_object', 'json_schema']);

/** `response_format` → JSON mode; a format other than text, json_object or json_schema is refused, not dropped. */
function responseFormat(format: unknown): Pick<GeminiGenerationConfig, 'responseMimeType' | 'responseJsonSchema'> {
  if (format === undefined || format === null) return {};
  if (!isJsonObject(format) || !RESPONSE_FORMATS.has(format.type)) {
    throw invalidRequest('`response_format.type` must be text, json_object or json_schema for this provider', 'response_format');
  }
  if (format.type === 'text') return {};
  const schema = format.type === 'json_schema' && isJsonObject(format.json_schema) ? format.json_schema.schema : undefined;
  return schema === undefined ? { responseMimeType: 'application/json' } : { responseMimeType: 'application/json', responseJsonSchema: schema };
}

/** Format-A sampling, length, stop, JSON-mode, reasoning and logprobs fields → `generationConfig`. */
export function translateGenerationConfig(body: JsonObject, model: string, google: GoogleExtras): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  const set = <K extends keyof GeminiGenerationConfig>(key: K, value: GeminiGenerationConfig[K] | undefined): void => {
    if (value !== undefined) config[key] = value;
  };
  set('temperature', numberField(body, 'temperature'));
  set('topP', numberField(body, 'top_p'));
  set('topK', numberField(body, 'top_k', true));
  set('maxOutputTokens', numberField(body, 'max_completion_tokens', true) ?? numberField(body, 'max_tokens', true));
  set('candidateCount', numberField(body, 'n', true));
  set('presencePenalty', numberField(body, 'presence_penalty'));
  set('frequencyPenalty', numberField(body, 'frequency_penalty'));
  set('seed', numberField(body, 'seed', true));
  set('stopSequences', stopSequences(body.stop));
  Object.assign(config, responseFormat(body.response_format));
  Object.assign(config, translateLogprobs(body));
  const thinking = mergeThinking(requestedEffort(body), google.thinkingConfig, model);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

/**
 * `logprobs` / `top_logprobs` → `responseLogprobs` / `logprobs`. As OpenAI does, `top_logprobs`
 * needs `logprobs: true` and is an integer from 0 to 20 (Gemini's range too).
 */
function translateLogprobs(body: JsonObject): Pick<GeminiGenerationConfig, 'responseLogprobs' | 'logprobs'> {
  const top = body.top_logprobs;
  const hasTop = top !== undefined && top !== null;
  if (hasTop && (typeof top !== 'number' || !Number.isInteger(top) || top < 0 || top > 20)) {
    throw invalidRequest('`top_logprobs` must be an integer from 0 to 20', 'top_logprobs');
  }
  if (body.logprobs !== true) {
    if (hasTop) throw invalidRequest('`top_logprobs` needs `logprobs: true`', 'top_logprobs');
    return {};
  }
  return hasTop ? { responseLogprobs: true, logprobs: top } : { responseLogprobs: true };
}

/**
 * The effort asked for, read with the governance reasoning cap's precedence (stage 1.7):
 * `reasoning_effort`, else the `reasoning: {effort}` object form.
 */
function requestedEffort(body: JsonObject): { value: unknown; param: string } | undefined {
  if (body.reasoning_effort !== undefined && body.reasoning_effort !== null) return { value: body.reasoning_effort, param: 'reasoning_effort' };
  const effort = isJsonObject(body.reasoning) ? body.reasoning.effort : undefined;
  return effort !== undefined && effort !== null ? { value: effort, param: 'reasoning.effort' } : undefined;
}

/**
 * The effort's thinking config with `extra_body.google.thinking_config` over it. An effort and an
 * explicit budget or level overlap, and Google's OpenAI-compatible endpoint refuses them together;
 * `include_thoughts` goes with either.
 */
function mergeThinking(effort: ReturnType<typeof requestedEffort>, explicit: GeminiThinkingConfig | undefined, model: string): GeminiThinkingConfig | undefined {
  if (effort && (explicit?.thinkingBudget !== undefined || explicit?.thinkingLevel !== undefined)) {
    throw invalidRequest(
      `Send \`${effort.param}\` or a thinking_budget / thinking_level in \`extra_body.google.thinking_config\`, not both`,
      'extra_body.google.thinking_config',
    );
  }
  const fromEffort = effort ? thinkingConfig(effort.value, model, effort.param) : undefined;
  if (!explicit || Object.keys(explicit).length === 0) return fromEffort;
  return { ...fromEffort, ...explicit };
}

/** Google's OpenAI-compatibility mapping of `reasoning_effort` to Gemini 2.5 thinking budgets. */
const THINKING_BUDGETS: Record<string, number> = { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576 };

const modelId = (model: string): string => model.replace(/^models\//, '').toLowerCase();

/** The major version of a Gemini model name (`gemini-3-pro-preview`: 3, `models/` prefix allowed); NaN for other names. */
export const geminiMajor = (model: string): number => Number(/^(?:models\/)?gemini-(\d+)/.exec(model)?.[1]);

/**
 * `reasoning_effort` → `thinkingConfig`, as Google's OpenAI-compatible endpoint maps it
 * (https://ai.google.dev/gemini-api/docs/openai#thinking): Gemini 3 and later get the `thinkingLevel`
 * of the same name, Gemini 2.5 a `thinkingBudget`. Models from before thinking get nothing. Values
 * are read case-insensitively, as the governance reasoning cap (stage 1.7) reads them, so what was
 * capped is what is sent: an effort a model cannot honour is refused, not raised to its lowest level
 * as Google's endpoint does (the cap valued `none` at 0 tokens; Gemini 3 Pro would think at `LOW`).
 */
function thinkingConfig(effort: unknown, model: string, param = 'reasoning_effort'): GeminiThinkingConfig | undefined {
  if (effort === undefined || effort === null) return undefined;
  const value = typeof effort === 'string' ? effort.toLowerCase() : undefined;
  if (value === undefined || !Object.hasOwn(THINKING_BUDGETS, value)) {
    throw invalidRequest(`\`${param}\` must be one of none, minimal, low, medium, high for this provider`, param);
  }
  const id = modelId(model);
  if (geminiMajor(id) >= 3) {
    // Gemini 3 cannot stop thinking; Pro models have no MINIMAL level, Flash and Flash-Lite do.
    const lowest = /^gemini-[\d.]+-pro/.test(id) ? 'low' : 'minimal';
    if (value === 'none' || (value === 'minimal' && lowest === 'low')) {
      throw invalidRequest(`${model} cannot think less than ${param} ${lowest}; send ${lowest} for its smallest thinking`, param);
    }
    return { thinkingLevel: value.toUpperCase() as GeminiThinkingConfig['thinkingLevel'] };
  }
  if (/^gemini-(1\.|2\.0-)/.test(id)) return undefined;
  if (value === 'none' && /^gemini-2\.5-pro/.test(id)) {
    // Gemini would answer 400 ("This model only works in thinking mode"); say so before the call.
    throw invalidRequest(`${model} cannot turn thinking off; send ${param} minimal or low for the smallest thinking budget`, param);
  }
  return { thinkingBudget: THINKING_BUDGETS[value] };
}
