import { AdmitLevel, AdmitCode, AdmitPlan, AdmitResult, CounterStore, RateStatus, SettlePlan, SettleResult } from './types';

interface Entry {
  /** A counter, or a hash of fields (accumulators `s`/`r`, per-key counts, busiest orgs, markers). */
  counter: number;
  fields: Map<string, number>;
  expiresAt: number;
}

export interface MemoryCounterStoreOptions {
  /** Clock in ms (tests). */
  now?: () => number;
  /** How often expired entries are swept (0: never). */
  sweepIntervalMs?: number;
}

/**
 * Counters in process memory with the semantics of the Redis scripts, step for step: the embedded
 * mode (no REDIS_URL) and the fallback while Redis is unreachable. Node runs each call to the end
 * without interleaving, which makes every `admit` and `settle` atomic as the scripts are.
 */
export class MemoryCounterStore implements CounterStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout | null;

  constructor(options: MemoryCounterStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    const interval = options.sweepIntervalMs ?? 30_000;
    this.sweeper = interval > 0 ? setInterval(() => this.sweep(), interval) : null;
    this.sweeper?.unref();
  }

  async admit(plan: AdmitPlan): Promise<AdmitResult> {
    return this.admitSync(plan);
  }

  async settle(plan: SettlePlan): Promise<SettleResult> {
    return this.settleSync(plan);
  }

  async rateStatus(rpmKey: string, keysKey: string): Promise<RateStatus> {
    const perKey = this.get(keysKey);
    return { count: this.get(rpmKey)?.counter ?? 0, keys: Object.fromEntries(perKey?.fields ?? []) };
  }

  async busiest(busyKey: string, limit: number): Promise<{ orgId: string; count: number }[]> {
    const orgs = [...(this.get(busyKey)?.fields ?? [])].map(([orgId, count]) => ({ orgId, count }));
    return orgs.sort((a, b) => b.count - a.count || (a.orgId < b.orgId ? 1 : -1)).slice(0, Math.max(0, limit));
  }

  async today(todayKey: string, budgetsKey: string): Promise<{ spentMicros: number; budgetsMicros: number }> {
    let budgets = 0;
    for (const value of this.get(budgetsKey)?.fields.values() ?? []) budgets += value;
    return { spentMicros: this.get(todayKey)?.counter ?? 0, budgetsMicros: budgets };
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Forgets every counter (the fallback store, once Redis has the replayed spend). */
  clear(): void {
    this.entries.clear();
  }

  /** Number of live entries (tests). */
  size(): number {
    this.sweep();
    return this.entries.size;
  }

  private admitSync(plan: AdmitPlan): AdmitResult {
    let rpm = this.get(plan.rpm.key)?.counter ?? 0;
    const reserve = plan.level >= AdmitLevel.Reserve;
    const [ds, dr] = reserve ? this.seeded(plan.day.key, plan.day.seedMicros, plan.day.ttlSeconds) : this.read(plan.day.key);
    const [ms, mr] = reserve ? this.seeded(plan.month.key, plan.month.seedMicros, plan.month.ttlSeconds) : this.read(plan.month.key);
    let quotaUsed = 0;
    const reply = (code: AdmitCode, deniedIndex = 0, deniedUsedMicros = 0, reserved = 0): AdmitResult => ({
      code,
      rpmCount: rpm,
      quotaUsed,
      daySpentMicros: ds,
      dayReservedMicros: dr + reserved,
      monthSpentMicros: ms,
      monthReservedMicros: mr + reserved,
      deniedIndex,
      deniedUsedMicros,
    });

    const quotaLimit = plan.quota.limit;
    if (plan.level >= AdmitLevel.Quota && quotaLimit !== null) {
      quotaUsed = this.get(plan.quota.key)?.counter ?? 0;
      if (quotaUsed >= quotaLimit) return reply('quota');
    }

    if (plan.level >= AdmitLevel.Rate) {
      if (rpm >= plan.rpm.limit) return reply('rpm');
      rpm = this.incr(plan.rpm.key, plan.rpm.ttlSeconds, 1);
      this.hincr(plan.rpm.keysKey, plan.rpm.keyField, 1, plan.rpm.ttlSeconds);
      this.hincr(plan.rpm.busyKey, plan.orgId, 1, plan.rpm.ttlSeconds);
      if (quotaLimit !== null) quotaUsed = this.incr(plan.quota.key, plan.quota.ttlSeconds, 1);
    }

    if (!reserve) return reply('ok');
    const est = plan.estimateMicros;
    if (ds + dr + est > plan.day.limitMicros) return reply('daily_budget');
    if (plan.autoStopMicros !== null && ds + dr >= plan.autoStopMicros) return reply('auto_stop');
    if (ms + mr + est > plan.month.limitMicros) return reply('monthly_budget');
    for (let i = 0; i < plan.nodes.length; i++) {
      const node = plan.nodes[i];
      const [s, r] = this.seeded(node.key, node.seedMicros, node.ttlSeconds);
      if (s + r + est > node.limitMicros) return reply('node', i, s + r);
    }
    if (plan.session) {
      const [s, r] = this.seeded(plan.session.key, plan.session.seedMicros, plan.session.ttlSeconds);
      if (s + r + est > plan.session.limitMicros) return reply('session', 0, s + r);
    }
    for (const acc of [plan.day, plan.month, ...plan.nodes, ...(plan.session ? [plan.session] : [])]) {
      this.hincr(acc.key, 'r', est, acc.ttlSeconds);
    }
    this.hset(plan.budgetsKey, plan.orgId, plan.day.limitMicros, plan.budgetsTtlSeconds);
    return reply('ok', 0, 0, est);
  }

  private settleSync(plan: SettlePlan): SettleResult {
    if (this.get(plan.markerKey)) return { applied: false, spentMicros: [], fired: [] };
    this.incr(plan.markerKey, plan.markerTtlSeconds, 1);
    if (plan.actualMicros > 0) this.incr(plan.todayKey, plan.todayTtlSeconds, plan.actualMicros);
    const spentMicros: number[] = [];
    const fired: number[][] = [];
    for (const target of plan.targets) {
      if (plan.reservedMicros > 0) {
        const r = this.hincr(target.key, 'r', -plan.reservedMicros, target.ttlSeconds);
        if (r < 0) this.hset(target.key, 'r', 0, target.ttlSeconds);
      }
      const s = this.hincr(target.key, 's', plan.actualMicros, target.ttlSeconds);
      const now: number[] = [];
      if (target.limitMicros > 0) {
        for (const threshold of target.thresholds) {
          if (s * 100 < threshold * target.limitMicros) continue;
          const warn = this.entry(target.warnKey, target.ttlSeconds, false);
          const field = String(threshold);
          if (warn.fields.has(field)) continue;
          warn.fields.set(field, 1);
          now.push(threshold);
        }
      }
      spentMicros.push(s);
      fired.push(now);
    }
    return { applied: true, spentMicros, fired };
  }

  private get(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** The entry of `key`, created when missing; `touch` renews its TTL like EXPIRE after a write. */
  private entry(key: string, ttlSeconds: number, touch = true): Entry {
    let entry = this.get(key);
    const expiresAt = this.now() + ttlSeconds * 1000;
    if (!entry) {
      entry = { counter: 0, fields: new Map(), expiresAt };
      this.entries.set(key, entry);
    } else if (touch) {
      entry.expiresAt = expiresAt;
    }
    return entry;
  }

  private read(key: string): [number, number] {
    const fields = this.get(key)?.fields;
    return [fields?.get('s') ?? 0, fields?.get('r') ?? 0];
  }

  private seeded(key: string, seedMicros: number, ttlSeconds: number): [number, number] {
    if (seedMicros > 0) {
      const existing = this.get(key);
      if (!existing || !existing.fields.has('s')) this.entry(key, ttlSeconds, !existing).fields.set('s', seedMicros);
    }
    return this.read(key);
  }

  private incr(key: string, ttlSeconds: number, by: number): number {
    const entry = this.entry(key, ttlSeconds);
    entry.counter += by;
    return entry.counter;
  }

  private hincr(key: string, field: string, by: number, ttlSeconds: number): number {
    const entry = this.entry(key, ttlSeconds);
    const value = (entry.fields.get(field) ?? 0) + by;
    entry.fields.set(field, value);
    return value;
  }

  private hset(key: string, field: string, value: number, ttlSeconds: number): void {
    this.entry(key, ttlSeconds).fields.set(field, value);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
