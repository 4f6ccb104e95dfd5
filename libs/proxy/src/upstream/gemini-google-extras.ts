import { invalidRequest } from '@svc/platform';
import { GeminiThinkingConfig } from './gemini-types';
import { isJsonObject, JsonObject } from './types';

/** Gemini-only fields a format-A client sends under `extra_body.google`, translated 1:1. */
export interface GoogleExtras {
  thinkingConfig?: GeminiThinkingConfig;
  cachedContent?: string;
}

const GOOGLE = 'extra_body.google';
const THINKING = `${GOOGLE}.thinking_config`;
const LEVELS = ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'] as const;
const INT32_MAX = 2_147_483_647;

const absent = (value: unknown): boolean => value === undefined || value === null;

/**
 * `extra_body.google` as Google's OpenAI-compatible endpoint reads it
 * (https://ai.google.dev/gemini-api/docs/openai, "extra body"): the body carries a top-level
 * `extra_body` object. The OpenAI Node SDK sends unknown params as they are, and Google's Python
 * example nests it (`extra_body={"extra_body": {"google": ...}}`) because that SDK merges its
 * `extra_body` into the body. Google rejects names it does not know ("Unknown name ... Cannot find
 * field"), and so does this translation, naming the param, rather than drop a setting silently.
 */
export function googleExtras(body: JsonObject): GoogleExtras {
  if (!absent(body.google)) {
    throw invalidRequest('`google` goes under `extra_body`: {"extra_body": {"google": {...}}} (with the OpenAI Python SDK, extra_body={"extra_body": {"google": {...}}})', 'google');
  }
  const extra = body.extra_body;
  if (absent(extra)) return {};
  if (!isJsonObject(extra)) throw invalidRequest('`extra_body` must be an object', 'extra_body');
  for (const key of Object.keys(extra)) {
    if (key !== 'google') throw invalidRequest(`\`extra_body.${key}\` is not known; Gemini-specific fields go under \`${GOOGLE}\``, `extra_body.${key}`);
  }
  const google = extra.google;
  if (absent(google)) return {};
  if (!isJsonObject(google)) throw invalidRequest(`\`${GOOGLE}\` must be an object`, GOOGLE);
  const extras: GoogleExtras = {};
  for (const [key, value] of Object.entries(google)) {
    if (absent(value)) continue;
    if (key === 'thinking_config') extras.thinkingConfig = readThinkingConfig(value);
    else if (key === 'cached_content') {
      if (typeof value !== 'string' || value === '') throw invalidRequest(`\`${GOOGLE}.cached_content\` must be a cache name (cachedContents/...)`, `${GOOGLE}.cached_content`);
      extras.cachedContent = value;
    } else {
      throw invalidRequest(`\`${GOOGLE}.${key}\` is not translated for this provider (known: thinking_config, cached_content)`, `${GOOGLE}.${key}`);
    }
  }
  return extras;
}

/** `thinking_config` → Gemini's `ThinkingConfig`; Gemini itself checks a budget against the model's range. */
function readThinkingConfig(value: unknown): GeminiThinkingConfig {
  if (!isJsonObject(value)) throw invalidRequest(`\`${THINKING}\` must be an object`, THINKING);
  const config: GeminiThinkingConfig = {};
  for (const [key, v] of Object.entries(value)) {
    if (absent(v)) continue;
    const param = `${THINKING}.${key}`;
    if (key === 'thinking_budget') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -1 || v > INT32_MAX) {
        throw invalidRequest(`\`${param}\` must be an integer: -1 (the model decides), 0 (no thinking, where the model allows it) or a token budget`, param);
      }
      config.thinkingBudget = v;
    } else if (key === 'thinking_level') {
      const level = typeof v === 'string' ? v.toUpperCase() : '';
      if (!(LEVELS as readonly string[]).includes(level)) throw invalidRequest(`\`${param}\` must be one of minimal, low, medium, high`, param);
      config.thinkingLevel = level as GeminiThinkingConfig['thinkingLevel'];
    } else if (key === 'include_thoughts') {
      if (typeof v !== 'boolean') throw invalidRequest(`\`${param}\` must be a boolean`, param);
      config.includeThoughts = v;
    } else {
      throw invalidRequest(`\`${param}\` is not translated for this provider (known: thinking_budget, thinking_level, include_thoughts)`, param);
    }
  }
  if (config.thinkingBudget !== undefined && config.thinkingLevel !== undefined) {
    // Gemini answers 400 to both; say so before the call.
    throw invalidRequest('Send thinking_budget or thinking_level, not both', THINKING);
  }
  return config;
}
