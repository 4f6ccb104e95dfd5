import type { Redis } from '@svc/platform';

/** Injection token of the process's OnceGate. */
export const ONCE_GATE = Symbol('ONCE_GATE');

/**
 * "Only the first one within a window": the dedup of events per organization and type, and the
 * once-per-hour firing of anomalies. A key is claimed by an owner (an event id, an anomaly id)
 * for `ttlMs`. Claiming again with the same owner succeeds, so a job retried after a crash
 * (same event id) is not mistaken for a duplicate.
 */
export interface OnceGate {
  readonly kind: 'redis' | 'memory';
  /** True when the key was free (now held by `owner` until `ttlMs` from now) or is held by `owner`. */
  claim(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Frees the key if `owner` still holds it (what was claimed did not happen after all). */
  release(key: string, owner: string): Promise<void>;
}

/** Deletes the key only when its value is the owner's: a compare-and-delete in one step. */
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** `SET key owner NX PX ttl`: shared by every replica of the dispatcher. */
export class RedisOnceGate implements OnceGate {
  readonly kind = 'redis' as const;

  constructor(private readonly redis: Redis) {}

  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const set = await this.redis.set(key, owner, 'PX', Math.max(1, Math.round(ttlMs)), 'NX');
    if (set === 'OK') return true;
    return (await this.redis.get(key)) === owner;
  }

  async release(key: string, owner: string): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, key, owner);
  }
}

/** Sweep expired entries once the map holds this many. */
const SWEEP_AT = 10_000;

/** The embedded mode (no Redis): one process, so a map with expiry times is enough. */
export class MemoryOnceGate implements OnceGate {
  readonly kind = 'memory' as const;
  private readonly held = new Map<string, { owner: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    if (this.held.size >= SWEEP_AT) this.sweep(now);
    const current = this.held.get(key);
    if (current && current.expiresAt > now) return current.owner === owner;
    this.held.set(key, { owner, expiresAt: now + ttlMs });
    return true;
  }

  async release(key: string, owner: string): Promise<void> {
    if (this.held.get(key)?.owner === owner) this.held.delete(key);
  }

  /** Keys currently held (tests). */
  get size(): number {
    return this.held.size;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.held) if (entry.expiresAt <= now) this.held.delete(key);
  }
}

export function createOnceGate(redis: Redis | null): OnceGate {
  return redis ? new RedisOnceGate(redis) : new MemoryOnceGate();
}
