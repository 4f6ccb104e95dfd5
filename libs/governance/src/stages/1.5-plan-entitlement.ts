import { GatewayError } from '@svc/platform';
import { checkEntitlements } from '../data/plan-entitlements';
import { maxOutputTokens } from '../cost/tokens';
import { ALLOW, ChainContext, StageResult } from '../chain/context';

/**
 * Stage 1.5, plan entitlement (DECISIONS.md "Plan entitlement (1.5)", table in
 * data/plan-entitlements.ts): streaming above the plan's max tokens, managed runners (a runner
 * principal, or runner headers with a proof that verifies) and HITL bypass are refused with
 * GW_PLAN_004 on plans without them.
 */
export function entitlementStage(ctx: ChainContext): StageResult {
  const { input } = ctx;
  const denial = checkEntitlements(ctx.profile.tier, {
    stream: input.stream,
    max_tokens: maxOutputTokens(input.body),
    // Runner headers whose proof does not verify are an ordinary request of the key (docs/governance.md).
    runner: input.principal.kind === 'runner' || ctx.runnerProofValid,
    hitl_bypass: input.hitlBypass === true,
  });
  if (!denial) return ALLOW;
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message: `${denial.message}.`,
      type: 'permission_error',
      code: 'feature_not_on_plan',
      gateway_error_code: 'GW_PLAN_004',
      param: denial.feature === 'streaming_max_tokens' ? 'max_tokens' : null,
      remediation:
        denial.feature === 'streaming_max_tokens'
          ? 'Lower max_tokens, send the request without streaming, or upgrade the plan.'
          : 'Upgrade the organization to a plan that includes this feature.',
    }),
  };
}
