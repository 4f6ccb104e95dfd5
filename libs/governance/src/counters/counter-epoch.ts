import { randomBytes } from 'node:crypto';
import type { Logger, Redis } from '@svc/platform';
import type { CounterKeys } from './keys';

/**
 * How a reseed treats a counter that exists:
 * - `add`: Redis lost its data while this process was using it, so a counter that exists holds only
 *   what was settled since the loss: the stored spend is added (less the seed an admit put in a
 *   budget node's counter when it created it). Settles since the loss whose usage records are
 *   already stored count twice: an over-count, never an under-count.
 * - `raise`: the marker is missing and this process never saw it (a first start on this Redis, an
 *   upgrade from a version that wrote none, or a loss while no process of this one ran): a counter
 *   below the stored spend is raised to it, one at or above it is kept, so counters an earlier
 *   version kept are not counted twice.
 */
export type ReseedMode = 'add' | 'raise';

/** One spend accumulator (a hash with `s` spent and `r` reserved) to reseed. */
export interface ReseedTarget {
  key: string;
  /** The period's stored spend (usage records), micro-dollars. */
  totalMicros: number;
  /** What an admit seeds the counter with when it creates it (a budget node's `spend_seed`), micro-dollars. */
  seedMicros: number;
  ttlSeconds: number;
}

export interface SpendSnapshot {
  /** Organizations with spend in a current period, and their accumulators. */
  orgs: { orgId: string; targets: ReseedTarget[] }[];
  /** Spend of all organizations today (the health view's `cost.today_usd`). */
  today: { key: string; totalMicros: number; ttlSeconds: number };
}

/** Reads the stored spend of the current periods (the document store's usage records). */
export type SpendSource = (now: Date) => Promise<SpendSnapshot>;

/**
 * One organization's accumulators, once per epoch (KEYS[1] is the done marker).
 * KEYS: 1 done marker, then one accumulator each. ARGV: 1 mode, 2 done marker TTL, then
 * (total, seed, ttl) per accumulator. Amounts go back as integers (`%.0f`: never `1e+15`).
 */
const RESEED_ORG_LUA = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then return 0 end
for i = 2, #KEYS do
  local base = 3 + (i - 2) * 3
  local total = tonumber(ARGV[base])
  local seed = tonumber(ARGV[base + 1])
  local s = tonumber(redis.call('HGET', KEYS[i], 's') or '')
  local v = total
  if s and ARGV[1] == 'add' then v = math.max(s + total - seed, total)
  elseif s then v = math.max(s, total) end
  redis.call('HSET', KEYS[i], 's', string.format('%.0f', v))
  redis.call('EXPIRE', KEYS[i], ARGV[base + 2])
end
return 1
`;

/** Today's spend of all organizations (a plain counter), once per epoch. Same ARGV as above, one value. */
const RESEED_TODAY_LUA = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then return 0 end
local total = tonumber(ARGV[3])
local s = tonumber(redis.call('GET', KEYS[2]) or '')
local v = total
if s and ARGV[1] == 'add' then v = s + total elseif s then v = math.max(s, total) end
redis.call('SET', KEYS[2], string.format('%.0f', v), 'EX', ARGV[4])
return 1
`;

/** Done markers outlive any reseed that could resume (a day). */
const DONE_TTL_SECONDS = 86_400;

export interface CounterEpochOptions {
  /** How often the marker is read while counting in Redis (default 5 s). */
  checkIntervalMs?: number;
  /** How long the reseed lock is held at most, should its holder die (default 300 s). */
  lockTtlSeconds?: number;
  /**
   * Reseed when the marker is missing and this process never saw it (`raise`). Off where reading the
   * usage records would load them into a gateway process's memory (the embedded document store).
   */
  reseedUnseen: boolean;
}

export type EpochCheck = 'present' | 'reseeded' | 'marked' | 'busy' | 'skipped';

/**
 * Detects that Redis lost the governance counters and reseeds their spend from the stored usage.
 * The marker key is read every `checkIntervalMs` (one GET per replica, off the request path; the
 * admit and settle scripts do not read it), when the client (re)connects and when counting returns
 * to Redis after an outage. When
 * it is missing, one replica (SET NX on the lock) reseeds the daily, monthly and budget-node spend of
 * every organization with usage in the current periods, then writes the marker. A reseed that fails
 * (the document store or Redis unavailable) keeps the lock and is resumed by its replica at the next
 * check, organizations already done skipped by their done markers.
 */
export class CounterEpoch {
  private seen: string | null = null;
  private resume: { epoch: string; mode: ReseedMode } | null = null;
  private running: Promise<EpochCheck> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly checkIntervalMs: number;
  private readonly lockTtlSeconds: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: CounterKeys,
    private readonly spend: SpendSource,
    private readonly logger: Logger,
    /** Counting happens in Redis now (not degraded): the marker can be trusted to be read. */
    private readonly usable: () => boolean,
    private readonly options: CounterEpochOptions,
  ) {
    this.checkIntervalMs = options.checkIntervalMs ?? 5_000;
    this.lockTtlSeconds = options.lockTtlSeconds ?? 300;
  }

  /** Checks now, whenever the client (re)connects, and every `checkIntervalMs`. */
  start(): void {
    if (this.timer) return;
    this.trigger();
    this.redis.on('ready', this.onReady);
    this.timer = setInterval(() => this.trigger(), this.checkIntervalMs);
    this.timer.unref();
  }

  /** A check in the background (errors logged); one at a time. */
  trigger(): void {
    void this.check().catch((err: unknown) => this.logger.warn({ err }, 'governance counters: the Redis data-loss check failed; retried at the next one'));
  }

  /** Reads the marker and reseeds when it is missing; a check already running is joined. */
  check(): Promise<EpochCheck> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.redis.off('ready', this.onReady);
  }

  private readonly onReady = (): void => this.trigger();

  private async run(): Promise<EpochCheck> {
    if (this.redis.status !== 'ready' || !this.usable()) return 'skipped';
    const marker = await this.redis.get(this.keys.epoch());
    if (marker !== null) {
      this.seen = marker;
      this.resume = null;
      return 'present';
    }
    let job = this.resume;
    if (!job) {
      const epoch = randomBytes(8).toString('hex');
      const locked = await this.redis.set(this.keys.epochLock(), epoch, 'EX', this.lockTtlSeconds, 'NX');
      if (locked === null) return 'busy';
      job = { epoch, mode: this.seen === null ? 'raise' : 'add' };
      this.resume = job;
    } else if ((await this.redis.get(this.keys.epochLock())) !== job.epoch) {
      // Our lock expired (or Redis lost it too): start over as any replica would.
      this.resume = null;
      return this.run();
    }
    const reseed = job.mode === 'add' || this.options.reseedUnseen;
    if (reseed) {
      const why = job.mode === 'add' ? 'Redis lost its data' : 'no marker of the counters in Redis';
      this.logger.warn({ mode: job.mode }, `governance counters: ${why}; reseeding the daily, monthly and budget-node spend from the usage records`);
      const orgs = await this.reseed(job.epoch, job.mode);
      this.logger.info({ mode: job.mode, orgs }, 'governance counters: spend reseeded from the usage records');
    }
    await this.redis.set(this.keys.epoch(), job.epoch);
    await this.redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, this.keys.epochLock(), job.epoch);
    this.seen = job.epoch;
    this.resume = null;
    return reseed ? 'reseeded' : 'marked';
  }

  /** Reads every organization's stored spend first, then writes it (one script per organization). */
  private async reseed(epoch: string, mode: ReseedMode): Promise<number> {
    const snapshot = await this.spend(new Date());
    for (const org of snapshot.orgs) {
      if (org.targets.length === 0) continue;
      const args: (string | number)[] = [mode, DONE_TTL_SECONDS];
      for (const target of org.targets) args.push(target.totalMicros, target.seedMicros, target.ttlSeconds);
      await this.redis.eval(RESEED_ORG_LUA, 1 + org.targets.length, this.keys.reseeded(org.orgId, epoch), ...org.targets.map((t) => t.key), ...args);
    }
    const { today } = snapshot;
    if (today.totalMicros > 0) {
      await this.redis.eval(RESEED_TODAY_LUA, 2, this.keys.reseededToday(epoch), today.key, mode, DONE_TTL_SECONDS, today.totalMicros, today.ttlSeconds);
    }
    return snapshot.orgs.length;
  }
}
