import { GatewayError } from '@svc/platform';
import { ChainContext, RateMeta, StageResult } from '../chain/context';

/**
 * Stage 1, requests per minute per organization in a fixed one-minute window. The count lives in
 * the counter store (one atomic script per request, see counters/); this renders its refusal.
 */
export function rateLimitRefusal(ctx: ChainContext, rate: RateMeta): StageResult {
  const retryAfter = Math.max(1, rate.reset - Math.floor(ctx.input.now.getTime() / 1000));
  // The refused request is the one past the limit: it is counted here (SPEC.md: blocked "when the
  // count exceeds" the limit), not in the window, so the 429 and the event say the same `5/4`.
  const count = rate.count + 1;
  return {
    outcome: 'BLOCK',
    error: new GatewayError(
      429,
      {
        message: `Rate limit exceeded: ${count}/${rate.limit} requests per minute`,
        type: 'rate_limit_error',
        code: 'rate_limit',
        gateway_error_code: 'GW_RATE_001',
        remediation: `Retry after ${retryAfter} seconds and keep to ${rate.limit} requests per minute, or ask an admin to raise rpm_limit.`,
      },
      { 'Retry-After': String(retryAfter) },
    ),
    events: [
      {
        type: 'guardrail.triggered',
        data: { guardrail: 'rate_limit', current_count: count, rpm_limit: rate.limit, model: ctx.input.model, timestamp: ctx.timestamp },
      },
    ],
  };
}

/** X-RateLimit-* values: what is left in the window after this request (set on `into`, which is returned). */
export function rateLimitHeaders(rate: RateMeta, into: Record<string, string> = {}): Record<string, string> {
  into['X-RateLimit-Limit'] = String(rate.limit);
  into['X-RateLimit-Remaining'] = String(Math.max(0, rate.limit - rate.count));
  into['X-RateLimit-Reset'] = String(rate.reset);
  return into;
}
