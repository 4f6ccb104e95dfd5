import type { Logger } from '@svc/platform';
import { MemoryCounterStore } from './memory-counter-store';
import { AdmitLevel, AdmitPlan, AdmitResult, CounterStore, RateStatus, SettlePlan, SettleResult } from './types';

export type StoreKind = 'redis' | 'memory';

export interface FailoverOptions {
  /** Longest a request waits on Redis before it is counted in memory (default 50 ms). */
  timeoutMs?: number;
  /** Deadline of a settle or a replayed settle on Redis (default 1000 ms; off the hot path). */
  settleTimeoutMs?: number;
  /** How often Redis is probed while degraded (default 1000 ms). */
  probeIntervalMs?: number;
  /**
   * Settles kept for Redis while it is unreachable (default 100,000; the oldest are dropped). Those
   * never sent are merged per set of accumulators, so this bounds the settles that may have reached
   * Redis and the number of distinct organizations and budget paths, not the requests.
   */
  maxPending?: number;
  /** Called when counting returns to Redis after an outage (the data-loss check, counter-epoch.ts). */
  onRecovered?: () => void;
}

export interface Primary {
  store: CounterStore;
  /** The client is connected (commands would not fail at once). */
  isReady(): boolean;
  ping(): Promise<unknown>;
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * Rejects when `promise` has not settled `ms` after the call. When the timer fires, one more turn
 * of the event loop is given (setImmediate runs after the I/O poll), so a reply that did arrive in
 * time but waited behind other work on a busy loop is still taken: only Redis' own silence counts.
 */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  // One promise and one timer per call (not a race of two promises and a `finally`): this wraps
  // every admit and settle.
  return new Promise<T>((resolve, reject) => {
    let immediate: NodeJS.Immediate | undefined;
    const timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new TimeoutError(ms)));
    }, ms);
    const done = () => {
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    };
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/** The settle that gives back a reservation Redis made after its caller had stopped waiting. */
export function releasePlan(plan: AdmitPlan): SettlePlan {
  const accumulators = [plan.day, plan.month, ...plan.nodes, ...(plan.session ? [plan.session] : [])];
  return {
    markerKey: plan.releaseMarkerKey,
    markerTtlSeconds: plan.day.ttlSeconds,
    reservedMicros: plan.estimateMicros,
    actualMicros: 0,
    targets: accumulators.map((acc) => ({ key: acc.key, ttlSeconds: acc.ttlSeconds, limitMicros: 0, warnKey: `${acc.key}:w`, thresholds: [] })),
    todayKey: plan.todayKey,
    todayTtlSeconds: plan.day.ttlSeconds,
  };
}

/** A settle kept for the replay. */
interface PendingSettle {
  plan: SettlePlan;
  /** Its accumulators while later settles may still merge into it; null once it may have reached Redis. */
  mergeKey: string | null;
}

/** Settles on the same accumulators merge into one: their sums move Redis exactly as the settles one by one would. */
function settleMergeKey(plan: SettlePlan): string {
  let key = plan.todayKey;
  for (const target of plan.targets) key += `|${target.key}|${target.warnKey}`;
  return key;
}

/**
 * One settle doing what `earlier` then `later` do (same accumulators): reservations and spend add up
 * (SETTLE_LUA floors a reservation at 0, and flooring once after both equals flooring after each),
 * the longest TTLs are kept, and `later`'s limits and thresholds apply, as they would last, unless
 * it has none (a released reservation): then `earlier`'s still mark the thresholds the spend crossed.
 * Its marker is new: neither settle was sent, so neither marker is on Redis.
 */
function mergeSettles(earlier: SettlePlan, later: SettlePlan): SettlePlan {
  return {
    markerKey: earlier.markerKey.endsWith(':merged') ? earlier.markerKey : `${earlier.markerKey}:merged`,
    markerTtlSeconds: Math.max(earlier.markerTtlSeconds, later.markerTtlSeconds),
    reservedMicros: earlier.reservedMicros + later.reservedMicros,
    actualMicros: earlier.actualMicros + later.actualMicros,
    targets: later.targets.map((target, i) => {
      const before = earlier.targets[i];
      const warns = target.limitMicros > 0 ? target : before;
      return { ...target, ttlSeconds: Math.max(target.ttlSeconds, before.ttlSeconds), limitMicros: warns.limitMicros, thresholds: warns.thresholds };
    }),
    todayKey: later.todayKey,
    todayTtlSeconds: Math.max(earlier.todayTtlSeconds, later.todayTtlSeconds),
  };
}

interface LastKnown {
  day: { key: string; spent: number };
  month: { key: string; spent: number };
}

/**
 * Redis first, memory when Redis fails. A request never waits on Redis longer than `timeoutMs`:
 * on an error, a timeout or a client that is not connected, counting switches to memory at once
 * (`degraded` is true), Redis is probed with PING every second, and when it answers the settles
 * it missed are replayed (idempotently, by their markers) before counting returns to Redis. Settles
 * that never reached Redis wait merged per set of accumulators, so a long outage under load keeps
 * one entry per organization and budget path instead of one per request.
 * While degraded the memory budgets start from the last daily and monthly spend Redis reported.
 * Without a primary (embedded mode) everything is counted in memory and nothing is degraded.
 */
export class FailoverCounterStore {
  private mode: StoreKind;
  private readonly pending: PendingSettle[] = [];
  /** The pending settles still open to merging, by their accumulators. */
  private readonly mergeable = new Map<string, PendingSettle>();
  private readonly lastKnown = new Map<string, LastKnown>();
  private probe: NodeJS.Timeout | null = null;
  private probing = false;
  private closed = false;
  private readonly timeoutMs: number;
  private readonly settleTimeoutMs: number;
  private readonly probeIntervalMs: number;
  private readonly maxPending: number;
  private readonly onRecovered: (() => void) | undefined;

  constructor(
    private readonly primary: Primary | null,
    private readonly memory: MemoryCounterStore,
    private readonly logger: Logger,
    options: FailoverOptions = {},
  ) {
    this.mode = primary ? 'redis' : 'memory';
    this.timeoutMs = options.timeoutMs ?? 50;
    this.settleTimeoutMs = options.settleTimeoutMs ?? 1000;
    this.probeIntervalMs = options.probeIntervalMs ?? 1000;
    this.maxPending = options.maxPending ?? 100_000;
    this.onRecovered = options.onRecovered;
  }

  /** True while Redis is configured but counting happens in memory. */
  get degraded(): boolean {
    return this.primary !== null && this.mode === 'memory';
  }

  /** Settles waiting for Redis, merged ones counted once (tests, health detail). */
  get pendingSettles(): number {
    return this.pending.length;
  }

  async admit(plan: AdmitPlan): Promise<{ result: AdmitResult; store: StoreKind }> {
    const primary = this.primary;
    if (primary && this.mode === 'redis') {
      if (primary.isReady()) {
        const attempt = primary.store.admit(plan);
        try {
          const result = await withTimeout(attempt, this.timeoutMs);
          this.remember(plan, result);
          return { result, store: 'redis' };
        } catch (err) {
          this.releaseLate(attempt, plan);
          this.degrade(err);
        }
      } else {
        this.degrade(new Error('Redis is not connected'));
      }
    }
    return { result: await this.memory.admit(this.seeded(plan)), store: 'memory' };
  }

  /** Settles where the reservation was made; Redis settles that fail are kept and replayed. */
  async settle(store: StoreKind, plan: SettlePlan): Promise<SettleResult> {
    const primary = this.primary;
    if (store === 'redis' && primary) {
      // A settle that was sent may have been applied before its deadline passed: it is kept as it
      // is, marker and all, and not merged with others.
      const sent = this.mode === 'redis' && primary.isReady();
      if (sent) {
        try {
          return await withTimeout(primary.store.settle(plan), this.settleTimeoutMs);
        } catch (err) {
          this.degrade(err);
        }
      }
      this.enqueue(plan, sent);
      // Degraded counting sees the spend at once; Redis gets it from the replay.
      return this.memory.settle({ ...plan, reservedMicros: 0, markerKey: `${plan.markerKey}:m` });
    }
    const result = await this.memory.settle(plan);
    if (primary && result.applied && plan.actualMicros > 0) {
      this.replay({ ...plan, reservedMicros: 0, markerKey: `${plan.markerKey}:replay` });
    }
    return result;
  }

  rateStatus(rpmKey: string, keysKey: string): Promise<RateStatus> {
    return this.read((store) => store.rateStatus(rpmKey, keysKey));
  }

  busiest(busyKey: string, limit: number): Promise<{ orgId: string; count: number }[]> {
    return this.read((store) => store.busiest(busyKey, limit));
  }

  today(todayKey: string, budgetsKey: string): Promise<{ spentMicros: number; budgetsMicros: number }> {
    return this.read((store) => store.today(todayKey, budgetsKey));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    await this.primary?.store.close();
  }

  private async read<T>(query: (store: CounterStore) => Promise<T>): Promise<T> {
    if (this.primary && this.mode === 'redis' && this.primary.isReady()) {
      try {
        return await withTimeout(query(this.primary.store), this.settleTimeoutMs);
      } catch (err) {
        this.degrade(err);
      }
    }
    return query(this.memory);
  }

  private degrade(err: unknown): void {
    if (this.closed || !this.primary) return;
    if (this.mode === 'redis') {
      this.mode = 'memory';
      this.logger.warn({ err }, 'Redis unreachable: governance counters fall back to memory (degraded)');
    }
    if (!this.probe) {
      this.probe = setInterval(() => void this.tryRecover(), this.probeIntervalMs);
      this.probe.unref();
    }
  }

  private async tryRecover(): Promise<void> {
    const primary = this.primary;
    if (!primary || this.probing || this.closed) return;
    this.probing = true;
    try {
      await withTimeout(primary.ping(), Math.max(this.settleTimeoutMs, 500));
      // The settles kept when Redis answered, then counting returns to Redis, then the settles kept
      // meanwhile. Waiting for an empty list before returning never ended under traffic: requests
      // counted in memory keep adding settles while the replay sends them one at a time.
      for (let kept = this.pending.length; kept > 0 && this.pending.length > 0; kept--) await this.replayFirst(primary);
      if (this.probe) clearInterval(this.probe);
      this.probe = null;
      this.lastKnown.clear();
      // Memory spend was replayed to Redis; a later outage starts again from what Redis reports.
      this.memory.clear();
      if (this.mode === 'memory' && !this.closed) {
        this.mode = 'redis';
        this.logger.info('Redis is back: governance counters use Redis again');
        this.onRecovered?.();
      }
      // Counting in Redis, settles of memory reservations go to Redis at once: this list only shrinks.
      while (this.pending.length > 0) await this.replayFirst(primary);
    } catch (err) {
      // Still (or again) unreachable: count in memory and try again at the next probe.
      if (this.mode === 'redis') this.degrade(err);
    } finally {
      this.probing = false;
    }
  }

  /** Sends the oldest kept settle to Redis; it is dropped from the list once Redis applied it. */
  private async replayFirst(primary: Primary): Promise<void> {
    const next = this.pending[0];
    // Sent as it is now: a retry after a timeout must carry the same amounts under the same marker.
    if (next.mergeKey !== null) this.mergeable.delete(next.mergeKey);
    next.mergeKey = null;
    await withTimeout(primary.store.settle(next.plan), this.settleTimeoutMs);
    // The list may have changed meanwhile (the oldest entry dropped at the cap): remove this entry where it is now.
    const index = this.pending.indexOf(next);
    if (index >= 0) this.pending.splice(index, 1);
  }

  /** Keeps a settle for the replay; `sent`: it went to Redis and may have been applied there. */
  private enqueue(plan: SettlePlan, sent: boolean): void {
    const mergeKey = sent ? null : settleMergeKey(plan);
    const open = mergeKey === null ? undefined : this.mergeable.get(mergeKey);
    if (open) {
      open.plan = mergeSettles(open.plan, plan);
      return;
    }
    if (this.pending.length >= this.maxPending) {
      const dropped = this.pending.shift();
      if (dropped?.mergeKey) this.mergeable.delete(dropped.mergeKey);
      this.logger.warn({ max: this.maxPending }, 'dropped the oldest settle kept for Redis');
    }
    const entry: PendingSettle = { plan, mergeKey };
    this.pending.push(entry);
    if (mergeKey !== null) this.mergeable.set(mergeKey, entry);
  }

  /** Applies a settle on Redis now when it is in use, else keeps it for the replay. */
  private replay(plan: SettlePlan): void {
    const primary = this.primary;
    if (!primary) return;
    if (this.mode === 'redis' && primary.isReady()) {
      withTimeout(primary.store.settle(plan), this.settleTimeoutMs).catch((err: unknown) => {
        this.enqueue(plan, true);
        this.degrade(err);
      });
      return;
    }
    this.enqueue(plan, false);
  }

  /** A reservation Redis made after the request stopped waiting is given back when the reply arrives. */
  private releaseLate(attempt: Promise<AdmitResult>, plan: AdmitPlan): void {
    attempt.then(
      (result) => {
        if (result.code !== 'ok' || plan.level < AdmitLevel.Reserve || plan.estimateMicros <= 0) return;
        this.replay(releasePlan(plan));
      },
      () => undefined,
    );
  }

  private remember(plan: AdmitPlan, result: AdmitResult): void {
    if (this.lastKnown.size >= 10_000 && !this.lastKnown.has(plan.orgId)) {
      this.lastKnown.delete(this.lastKnown.keys().next().value as string);
    }
    this.lastKnown.set(plan.orgId, {
      day: { key: plan.day.key, spent: result.daySpentMicros },
      month: { key: plan.month.key, spent: result.monthSpentMicros },
    });
  }

  /** Degraded budgets start from the last spend Redis reported for the organization. */
  private seeded(plan: AdmitPlan): AdmitPlan {
    const known = this.lastKnown.get(plan.orgId);
    if (!known || plan.level < AdmitLevel.Reserve) return plan;
    const day = known.day.key === plan.day.key && plan.day.seedMicros === 0 ? { ...plan.day, seedMicros: known.day.spent } : plan.day;
    const month = known.month.key === plan.month.key && plan.month.seedMicros === 0 ? { ...plan.month, seedMicros: known.month.spent } : plan.month;
    return { ...plan, day, month };
  }
}
