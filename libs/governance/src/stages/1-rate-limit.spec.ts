import { contextFor } from '../chain/governance.fixtures';
import { rateLimitHeaders, rateLimitRefusal } from './1-rate-limit';

describe('stage 1, rate limit', () => {
  it('refuses with 429 rate_limit, the documented message, Retry-After and a guardrail event', () => {
    const ctx = contextFor({ input: { now: new Date('2025-03-01T10:00:45Z') } });
    const reset = Math.floor(Date.parse('2025-03-01T10:01:00Z') / 1000);
    const result = rateLimitRefusal(ctx, { limit: 50, count: 50, reset });
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(429);
    expect(result.error.body).toMatchObject({
      message: 'Rate limit exceeded: 51/50 requests per minute',
      type: 'rate_limit_error',
      code: 'rate_limit',
      gateway_error_code: 'GW_RATE_001',
    });
    expect(result.error.headers['Retry-After']).toBe('15');
    expect(result.events?.[0]).toMatchObject({ type: 'guardrail.triggered', data: { guardrail: 'rate_limit', current_count: 51, rpm_limit: 50, model: 'gpt-4o-mini' } });
  });

  it('gives the remaining requests of the window in the headers', () => {
    expect(rateLimitHeaders({ limit: 10, count: 3, reset: 1700000060 })).toEqual({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '7',
      'X-RateLimit-Reset': '1700000060',
    });
    expect(rateLimitHeaders({ limit: 10, count: 12, reset: 1 })['X-RateLimit-Remaining']).toBe('0');
  });
});
