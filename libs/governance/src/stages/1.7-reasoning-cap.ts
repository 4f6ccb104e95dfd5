import { GatewayError } from '@svc/platform';
import { ALLOW, ChainContext, StageResult } from '../chain/context';

/**
 * Stage 1.7, reasoning token cap (DECISIONS.md): policy `max_reasoning_tokens` (none by default)
 * against the request's `max_completion_tokens` and `reasoning_effort` (format A) or
 * `thinking.budget_tokens` (format B), and Gemini's own `extra_body.google.thinking_config`
 * (`thinking_budget`, `thinking_level`), which the provider-C translation sends as they are. An effort
 * or thinking level counts as the token budget below, the reasoning budget vendors give each level;
 * `none` and a budget of 0 count as 0; a budget of -1 (the model decides, Gemini's default) asks for
 * nothing, as a request without any reasoning field.
 */
export const REASONING_EFFORT_TOKENS: Readonly<Record<string, number>> = Object.freeze({
  none: 0,
  minimal: 1_024,
  low: 4_096,
  medium: 16_384,
  high: 32_768,
  xhigh: 65_536,
});

export interface ReasoningAsk {
  field: string;
  tokens: number;
  /** An effort or thinking level as the client sent it, for a refusal: `reasoning effort high`, `thinking level medium`. */
  level?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positive(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : null;
}

/** The tokens an effort or thinking level (any case) counts as, or null for a value that is none of them. */
function levelTokens(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const level = value.toLowerCase();
  return Object.hasOwn(REASONING_EFFORT_TOKENS, level) ? REASONING_EFFORT_TOKENS[level] : null;
}

/** What the request asks for, by field; the largest decides. */
export function reasoningAsks(body: unknown): ReasoningAsk[] {
  if (!isObject(body)) return [];
  const asks: ReasoningAsk[] = [];
  const completion = positive(body.max_completion_tokens);
  if (completion !== null) asks.push({ field: 'max_completion_tokens', tokens: completion });
  const effort = typeof body.reasoning_effort === 'string' ? body.reasoning_effort : isObject(body.reasoning) ? body.reasoning.effort : undefined;
  const effortTokens = levelTokens(effort);
  if (effortTokens !== null) {
    asks.push({ field: typeof body.reasoning_effort === 'string' ? 'reasoning_effort' : 'reasoning.effort', tokens: effortTokens, level: `reasoning effort ${String(effort).toLowerCase()}` });
  }
  if (isObject(body.thinking) && body.thinking.type !== 'disabled') {
    const budget = positive(body.thinking.budget_tokens);
    if (budget !== null) asks.push({ field: 'thinking.budget_tokens', tokens: budget });
  }
  pushGeminiThinkingAsks(body, asks);
  return asks;
}

function pushGeminiThinkingAsks(body: Record<string, unknown>, asks: ReasoningAsk[]): void {
  const google = isObject(body.extra_body) ? body.extra_body.google : undefined;
  const thinking = isObject(google) ? google.thinking_config : undefined;
  if (!isObject(thinking)) return;
  const field = 'extra_body.google.thinking_config';
  const budget = thinking.thinking_budget;
  // 0 counts (thinking off); -1 (the model decides) asks for nothing.
  if (typeof budget === 'number' && Number.isFinite(budget) && budget >= 0) asks.push({ field: `${field}.thinking_budget`, tokens: Math.ceil(budget) });
  const levelAsk = levelTokens(thinking.thinking_level);
  if (levelAsk !== null) asks.push({ field: `${field}.thinking_level`, tokens: levelAsk, level: `thinking level ${String(thinking.thinking_level).toLowerCase()}` });
}

/** The largest reasoning budget the request asks for, or null (kept on the usage record). */
export function reasoningTokens(body: unknown): number | null {
  return largestAsk(reasoningAsks(body));
}

function largestAsk(asks: readonly ReasoningAsk[]): number | null {
  return asks.length > 0 ? Math.max(...asks.map((ask) => ask.tokens)) : null;
}

export function reasoningCapStage(ctx: ChainContext): StageResult {
  const asks = reasoningAsks(ctx.input.body);
  ctx.findings.reasoning_tokens = largestAsk(asks);
  const cap = ctx.policy.max_reasoning_tokens;
  if (cap === null) return ALLOW;
  const over = asks.find((ask) => ask.tokens > cap);
  if (!over) return ALLOW;
  const value = over.level ? `${over.level} (${over.tokens} tokens)` : `${over.tokens} tokens`;
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message: `The request asks for ${value} in ${over.field}, above the organization's reasoning cap of ${cap} tokens.`,
      type: 'permission_error',
      code: 'reasoning_cap_exceeded',
      gateway_error_code: 'GW_REASONING_001',
      param: over.field,
      remediation: `Set ${over.field} to at most ${cap} tokens (or a lower reasoning effort), or ask an admin to raise max_reasoning_tokens.`,
    }),
  };
}
