import { GatewayError } from '@svc/platform';
import { isModelOnPlan } from '../data/plan-entitlements';
import { isSubscriptionActive } from '../data/plan-quotas';
import { ALLOW, ChainContext, StageResult } from '../chain/context';
import { secondsUntilNextDay } from '../counters/periods';

/**
 * Stage 0, plan enforcement (DECISIONS.md "Organization plan", "Plan daily request quotas").
 * In process: the subscription is `active` or `trialing`, and the model is on the plan. The daily
 * request quota is a counter checked in the one Redis round trip (`planQuotaRefusal` renders it).
 */
export function planStage(ctx: ChainContext): StageResult {
  const { subscriptionStatus, tier } = ctx.profile;
  if (!isSubscriptionActive(subscriptionStatus)) {
    return {
      outcome: 'BLOCK',
      error: new GatewayError(403, {
        message: `The organization's subscription is ${subscriptionStatus}; only active or trialing subscriptions can use the gateway.`,
        type: 'permission_error',
        code: 'subscription_inactive',
        gateway_error_code: 'GW_PLAN_001',
        remediation: "Reactivate the organization's subscription (settle any open invoice), then retry.",
      }),
    };
  }
  if (!isModelOnPlan(tier, ctx.bareModel)) {
    return {
      outcome: 'BLOCK',
      error: new GatewayError(403, {
        message: `The model ${ctx.input.model} is not available on the ${tier} plan.`,
        type: 'permission_error',
        code: 'model_not_on_plan',
        gateway_error_code: 'GW_PLAN_003',
        param: 'model',
        remediation: 'Use a model included in your plan, or upgrade to the starter plan or higher.',
      }),
    };
  }
  return ALLOW;
}

/** 429 once the organization used its plan's requests for the UTC day. */
export function planQuotaRefusal(ctx: ChainContext, used: number, quota: number): StageResult {
  const retryAfter = secondsUntilNextDay(ctx.input.now);
  return {
    outcome: 'BLOCK',
    error: new GatewayError(
      429,
      {
        message: `Daily request quota of the ${ctx.profile.tier} plan exceeded: ${used}/${quota} requests today.`,
        type: 'insufficient_quota',
        code: 'plan_limit_exceeded',
        gateway_error_code: 'GW_PLAN_002',
        remediation: `The quota resets at 00:00 UTC (in ${retryAfter} seconds); upgrade the plan for a larger daily quota.`,
      },
      { 'Retry-After': String(retryAfter) },
    ),
  };
}
