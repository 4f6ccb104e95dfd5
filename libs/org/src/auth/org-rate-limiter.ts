import type { Logger, Redis } from '@svc/platform';

export interface RateLimitDecision {
  allowed: boolean;
  count: number;
  limit: number;
  remaining: number;
  /** Epoch seconds when the current window ends. */
  resetAt: number;
  /** Seconds until the window ends (at least 1). */
  retryAfter: number;
}

const WINDOW_MS = 60_000;

/**
 * DECISIONS.md "Org API rate limit": requests per minute per organization, in fixed one-minute
 * windows. With Redis the counter is shared by every replica (INCR and EXPIRE in one MULTI round
 * trip); without Redis, or when a Redis command fails, each process counts in memory.
 */
export class OrgRateLimiter {
  private readonly memory = new Map<string, { window: number; count: number }>();

  constructor(
    private readonly redis: Redis | null,
    readonly limit: number,
    private readonly logger: Logger,
    private readonly prefix = 'svc:org-api:rpm',
  ) {}

  async hit(orgId: string, now = Date.now()): Promise<RateLimitDecision> {
    const window = Math.floor(now / WINDOW_MS);
    const count = (await this.countInRedis(orgId, window)) ?? this.countInMemory(orgId, window);
    const resetMs = (window + 1) * WINDOW_MS;
    return {
      allowed: count <= this.limit,
      count,
      limit: this.limit,
      remaining: Math.max(0, this.limit - count),
      resetAt: Math.ceil(resetMs / 1000),
      retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
    };
  }

  private async countInRedis(orgId: string, window: number): Promise<number | null> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    const key = `${this.prefix}:${orgId}:${window}`;
    try {
      const results = await this.redis.multi().incr(key).expire(key, Math.ceil(WINDOW_MS / 1000) + 5).exec();
      const [error, value] = results?.[0] ?? [new Error('empty MULTI reply'), null];
      if (error) throw error;
      return Number(value);
    } catch (err) {
      this.logger.warn({ err }, 'org API rate limit: Redis unavailable, counting in memory');
      return null;
    }
  }

  private countInMemory(orgId: string, window: number): number {
    const entry = this.memory.get(orgId);
    if (!entry || entry.window !== window) {
      if (this.memory.size > 100_000) this.memory.clear();
      this.memory.set(orgId, { window, count: 1 });
      return 1;
    }
    entry.count += 1;
    return entry.count;
  }
}
