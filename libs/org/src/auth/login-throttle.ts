import { createHash } from 'node:crypto';
import type { Logger, Redis } from '@svc/platform';
import { orgErrors } from '../common/org-errors';

/** Failed logins per e-mail and client address allowed within the window before logins are refused. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

/**
 * Slows down password guessing: after 5 failed logins for one e-mail from one address within 15
 * minutes (counted from the first failure), every login for that pair answers 429
 * `RATE_LIMIT_EXCEEDED` with `details.retry_after` until the window ends, even with the right
 * password. A successful login clears the count. Redis when available (shared by replicas), else memory.
 */
export class LoginThrottle {
  private readonly memory = new Map<string, { count: number; expiresAt: number }>();

  constructor(
    private readonly redis: Redis | null,
    private readonly logger: Logger,
    private readonly maxFailures = LOGIN_MAX_FAILURES,
    private readonly windowSeconds = LOGIN_FAILURE_WINDOW_SECONDS,
  ) {}

  /** Throws 429 while the pair is locked out. */
  async assertAllowed(email: string, ip: string, now = Date.now()): Promise<void> {
    const key = this.key(email, ip);
    const state = (await this.readRedis(key)) ?? this.readMemory(key, now);
    if (state.count >= this.maxFailures) {
      const retryAfter = Math.max(1, state.ttlSeconds);
      throw orgErrors.rateLimited(`Too many failed login attempts; try again in ${retryAfter} seconds`, retryAfter);
    }
  }

  async recordFailure(email: string, ip: string, now = Date.now()): Promise<void> {
    const key = this.key(email, ip);
    if (this.redis && this.redis.status === 'ready') {
      try {
        const results = await this.redis.multi().incr(key).ttl(key).exec();
        const ttl = Number(results?.[1]?.[1] ?? -1);
        if (ttl < 0) await this.redis.expire(key, this.windowSeconds);
        return;
      } catch (err) {
        this.logger.warn({ err }, 'login throttle: Redis unavailable, counting in memory');
      }
    }
    const entry = this.memory.get(key);
    if (!entry || entry.expiresAt <= now) {
      if (this.memory.size > 100_000) this.memory.clear();
      this.memory.set(key, { count: 1, expiresAt: now + this.windowSeconds * 1000 });
    } else {
      entry.count += 1;
    }
  }

  async recordSuccess(email: string, ip: string): Promise<void> {
    const key = this.key(email, ip);
    this.memory.delete(key);
    if (this.redis && this.redis.status === 'ready') await this.redis.del(key).catch(() => undefined);
  }

  private key(email: string, ip: string): string {
    return `svc:org-api:login-failures:${createHash('sha256').update(`${email.trim().toLowerCase()}|${ip}`).digest('hex')}`;
  }

  private async readRedis(key: string): Promise<{ count: number; ttlSeconds: number } | null> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    try {
      const results = await this.redis.multi().get(key).ttl(key).exec();
      return { count: Number(results?.[0]?.[1] ?? 0), ttlSeconds: Number(results?.[1]?.[1] ?? 0) };
    } catch {
      return null;
    }
  }

  private readMemory(key: string, now: number): { count: number; ttlSeconds: number } {
    const entry = this.memory.get(key);
    if (!entry || entry.expiresAt <= now) return { count: 0, ttlSeconds: 0 };
    return { count: entry.count, ttlSeconds: Math.ceil((entry.expiresAt - now) / 1000) };
  }
}
