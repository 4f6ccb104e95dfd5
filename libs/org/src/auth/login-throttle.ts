import { createHash } from 'node:crypto';
import type { IPv6 } from 'ipaddr.js';
import { parseIp } from '@svc/auth';
import type { Logger, Redis } from '@svc/platform';
import { orgErrors } from '../common/org-errors';

/** Failed logins per e-mail and client address allowed within the window before logins are refused. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

/** Entries the memory counts keep at most (the oldest go first, after the expired ones). */
const MAX_MEMORY_ENTRIES = 100_000;

/**
 * Slows down password guessing: a login for one e-mail from one address is counted before its
 * password is checked, and once more than 5 were counted within 15 minutes (from the first),
 * every login for that pair answers 429 `RATE_LIMIT_EXCEEDED` with `details.retry_after` until the
 * window ends, even with the right password. A successful login clears the count. Counting before
 * checking makes the limit hold for parallel attempts too: checking first and counting the failure
 * afterwards let 45 of 200 parallel wrong passwords through. Redis when available (shared by
 * replicas, one atomic MULTI per attempt), else memory. A key starts with a digest of the e-mail
 * alone, so an operator's password reset can clear the e-mail's lockouts from every address.
 * An IPv6 client is counted by its /64 (`throttledAddress`), as one IPv4 address is.
 */
export class LoginThrottle {
  private readonly memory = new Map<string, { count: number; expiresAt: number }>();

  constructor(
    private readonly redis: Redis | null,
    private readonly logger: Logger,
    private readonly maxFailures = LOGIN_MAX_FAILURES,
    private readonly windowSeconds = LOGIN_FAILURE_WINDOW_SECONDS,
  ) {}

  /** Counts a login attempt of the pair; throws 429 when it is past the limit (the password is then not checked). */
  async attempt(email: string, ip: string, now = Date.now()): Promise<void> {
    const key = this.key(email, ip);
    const state = (await this.countRedis(key)) ?? this.countMemory(key, now);
    if (state.count > this.maxFailures) {
      const retryAfter = Math.max(1, state.ttlSeconds);
      throw orgErrors.rateLimited(`Too many failed login attempts; try again in ${retryAfter} seconds`, retryAfter);
    }
  }

  /** A login that succeeded: its pair starts again from 0. */
  async recordSuccess(email: string, ip: string): Promise<void> {
    const key = this.key(email, ip);
    this.memory.delete(key);
    if (this.redis && this.redis.status === 'ready') await this.redis.del(key).catch(() => undefined);
  }

  /**
   * Ends every lockout of an e-mail, from any address (an operator reset its password); returns
   * how many counts it removed. Only what this process can reach: Redis, or its own memory.
   */
  async clear(email: string): Promise<number> {
    const prefix = this.emailPrefix(email);
    let cleared = 0;
    for (const key of [...this.memory.keys()]) if (key.startsWith(prefix)) cleared += Number(this.memory.delete(key));
    if (!this.redis) return cleared;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) cleared += await this.redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    return cleared;
  }

  private emailPrefix(email: string): string {
    return `svc:org-api:login-failures:${sha256(email.trim().toLowerCase()).slice(0, 32)}:`;
  }

  private key(email: string, ip: string): string {
    return `${this.emailPrefix(email)}${sha256(`${email.trim().toLowerCase()}|${throttledAddress(ip)}`)}`;
  }

  /** INCR with the window set on the first attempt (SET NX EX), atomically; null when Redis is not there. */
  private async countRedis(key: string): Promise<{ count: number; ttlSeconds: number } | null> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    try {
      const results = await this.redis.multi().set(key, '0', 'EX', this.windowSeconds, 'NX').incr(key).ttl(key).exec();
      return { count: Number(results?.[1]?.[1] ?? 0), ttlSeconds: Number(results?.[2]?.[1] ?? 0) };
    } catch (err) {
      this.logger.warn({ err }, 'login throttle: Redis unavailable, counting in memory');
      return null;
    }
  }

  private countMemory(key: string, now: number): { count: number; ttlSeconds: number } {
    let entry = this.memory.get(key);
    if (!entry || entry.expiresAt <= now) {
      if (this.memory.size >= MAX_MEMORY_ENTRIES) this.evict(now);
      entry = { count: 0, expiresAt: now + this.windowSeconds * 1000 };
      this.memory.delete(key);
      this.memory.set(key, entry);
    }
    entry.count += 1;
    return { count: entry.count, ttlSeconds: Math.ceil((entry.expiresAt - now) / 1000) };
  }

  /** Drops the expired entries, then the oldest ones down to 90 % (never every lockout at once). */
  private evict(now: number): void {
    for (const [key, entry] of this.memory) if (entry.expiresAt <= now) this.memory.delete(key);
    for (const key of this.memory.keys()) {
      if (this.memory.size < MAX_MEMORY_ENTRIES * 0.9) break;
      this.memory.delete(key);
    }
  }
}

/**
 * The address failed logins are counted for: an IPv4 address as is (an IPv4-mapped IPv6 one as its
 * IPv4), an IPv6 address as its /64 network. One subscriber, host or cloud instance is given a whole
 * /64 and can send from any of its 2^64 addresses: counted per address, each would get 5 guesses.
 */
export function throttledAddress(ip: string): string {
  const address = parseIp(ip);
  if (!address) return ip;
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
