import { Tier } from './tiers';

/**
 * Plan entitlements: the one table of what each plan may use (stage 0 model availability and
 * stage 1.5 feature gates, DECISIONS.md "Plan entitlement (1.5)").
 *
 * - free: streaming only up to 4,096 max tokens, no managed runners, no HITL bypass, and the
 *   premium "pro"/opus model lines are not on the plan (their single requests cost more than
 *   the free per-request cap anyway, so a clear GW_PLAN_003 beats a confusing cost_limit).
 * - starter: streaming without a token limit, every model; runners and HITL bypass stay off
 *   (runners are a private beta for team plans; bypassing approvals is an enterprise control).
 * - growth: starter plus managed runners.
 * - enterprise: everything.
 */

export interface PlanEntitlements {
  /** Largest max output tokens a streaming request may ask for; null = no limit. */
  streaming_max_tokens: number | null;
  /** Managed runners (sessions, `X-Runner-ID`). */
  runners: boolean;
  /** Keys of the organization may skip the HITL gate. */
  hitl_bypass: boolean;
  /** Model-id prefixes (lower case) that are not on the plan: GW_PLAN_003 `model_not_on_plan`. */
  blocked_model_prefixes: readonly string[];
}

export const PLAN_ENTITLEMENTS: Readonly<Record<Tier, Readonly<PlanEntitlements>>> = Object.freeze({
  free: Object.freeze({
    streaming_max_tokens: 4096,
    runners: false,
    hitl_bypass: false,
    blocked_model_prefixes: Object.freeze(['o1-pro', 'o3-pro', 'gpt-4.5', 'claude-opus-', 'claude-3-opus']),
  }),
  starter: Object.freeze({ streaming_max_tokens: null, runners: false, hitl_bypass: false, blocked_model_prefixes: Object.freeze([]) }),
  growth: Object.freeze({ streaming_max_tokens: null, runners: true, hitl_bypass: false, blocked_model_prefixes: Object.freeze([]) }),
  enterprise: Object.freeze({ streaming_max_tokens: null, runners: true, hitl_bypass: true, blocked_model_prefixes: Object.freeze([]) }),
});

export function planEntitlements(tier: Tier): PlanEntitlements {
  return PLAN_ENTITLEMENTS[tier];
}

/** Stage 0: whether the model (after alias resolution, without a `provider/` prefix) is on the plan. */
export function isModelOnPlan(tier: Tier, model: string): boolean {
  const id = model.trim().toLowerCase();
  return !PLAN_ENTITLEMENTS[tier].blocked_model_prefixes.some((prefix) => id.startsWith(prefix));
}

/** What a request asks of the plan (stage 1.5). */
export interface EntitlementRequest {
  stream: boolean;
  /** Max output tokens of the request (see `maxOutputTokens`). */
  max_tokens: number;
  /** The request runs inside a managed runner session. */
  runner: boolean;
  /** The caller asks to skip the HITL gate. */
  hitl_bypass: boolean;
}

export type EntitlementFeature = 'streaming_max_tokens' | 'runners' | 'hitl_bypass';

export interface EntitlementDenial {
  feature: EntitlementFeature;
  /** Client-facing text for GW_PLAN_004 `feature_not_on_plan`. */
  message: string;
}

/** Stage 1.5: the first feature the plan does not include, or null when everything is included. */
export function checkEntitlements(tier: Tier, request: EntitlementRequest): EntitlementDenial | null {
  const plan = PLAN_ENTITLEMENTS[tier];
  if (request.stream && plan.streaming_max_tokens !== null && request.max_tokens > plan.streaming_max_tokens) {
    return {
      feature: 'streaming_max_tokens',
      message: `Streaming with more than ${plan.streaming_max_tokens} max tokens is not available on the ${tier} plan`,
    };
  }
  if (request.runner && !plan.runners) {
    return { feature: 'runners', message: `Managed runners are not available on the ${tier} plan` };
  }
  if (request.hitl_bypass && !plan.hitl_bypass) {
    return { feature: 'hitl_bypass', message: `Bypassing human approval is not available on the ${tier} plan` };
  }
  return null;
}
