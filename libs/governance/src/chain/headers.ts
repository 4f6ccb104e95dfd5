import { plainDecimal, roundUsd } from '@svc/domain';
import { rateLimitHeaders } from '../stages/1-rate-limit';
import type { ChainContext } from './context';

/**
 * The headers of every response, allowed or refused (SPEC.md "Response headers on proxied
 * responses"): what the stages learned before the decision is carried into a refusal, so a 403
 * of stage 5 still has the rate-limit values and the daily cost. `extra` adds `Retry-After`
 * (429 and 202) and `X-SVC-Approval-ID` (202).
 */
export function decisionHeaders(ctx: ChainContext, governanceMs: number, extra?: Record<string, string>): Record<string, string> {
  // One object, filled in place: this runs on every request.
  const headers: Record<string, string> = {
    'X-SVC-Request-ID': ctx.input.requestId,
    'X-Gateway-Org': ctx.orgId,
    'X-SVC-Cost': usdHeader(ctx.estimate?.estimated_cost ?? 0),
    'X-SVC-Daily-Cost': usdHeader(ctx.dailySpent),
    'X-SVC-Daily-Budget': usdHeader(dailyBudget(ctx)),
    'X-SVC-Governance-Time-Ms': governanceMs.toFixed(3),
  };
  rateLimitHeaders(ctx.rate, headers);
  if (extra) Object.assign(headers, extra);
  return headers;
}

/**
 * A USD amount for a header: `roundUsd`, in plain decimals. `String` writes amounts below a
 * micro-dollar in exponent form (`6e-8`, the estimate of a short embeddings input), which a
 * header's reader should not have to parse.
 */
export function usdHeader(value: number): string {
  return plainDecimal(roundUsd(value));
}

/** The daily budget in force: the policy's, or a lower daily named budget with `auto_stop` (which refuses as `daily_budget` too). */
function dailyBudget(ctx: ChainContext): number {
  let budget = ctx.policy.daily_budget;
  for (const stop of ctx.profile.autoStopBudgets) if (stop.limit < budget) budget = stop.limit;
  return budget;
}
