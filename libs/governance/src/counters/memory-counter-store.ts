import { readFileSync, renameSync, writeFileSync } from 'node:fs';
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
  /**
   * The embedded mode's counters outlive a restart: read from this file at construction, written to
   * it every `intervalMs` (default 5 s) when something changed, and on close. Not for the fallback
   * store of a Redis deployment, which is cleared when Redis returns.
   */
  snapshot?: { path: string; intervalMs?: number; onError?: (err: unknown) => void };
}

/**
 * Keys a snapshot leaves out: a settle's and a release's marker are one per request (they only
 * stop a repeat of a settle, and the reservations of a previous process are void anyway).
 */
const NOT_SNAPSHOTTED = /:(settled|released):/;

interface SnapshotFile {
  version: 1;
  /** key, counter, fields, expiresAt (ms). */
  entries: [string, number, [string, number][], number][];
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
  private readonly snapshot: MemoryCounterStoreOptions['snapshot'];
  private readonly saver: NodeJS.Timeout | null = null;
  /** Something changed since the last snapshot. */
  private changed = false;

  constructor(options: MemoryCounterStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    const interval = options.sweepIntervalMs ?? 30_000;
    this.sweeper = interval > 0 ? setInterval(() => this.sweep(), interval) : null;
    this.sweeper?.unref();
    this.snapshot = options.snapshot;
    if (this.snapshot) {
      this.restore(this.snapshot.path);
      this.saver = setInterval(() => this.save(), this.snapshot.intervalMs ?? 5_000);
      this.saver.unref();
    }
  }

  async admit(plan: AdmitPlan): Promise<AdmitResult> {
    this.changed = true;
    return this.admitSync(plan);
  }

  async settle(plan: SettlePlan): Promise<SettleResult> {
    this.changed = true;
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
    if (this.saver) clearInterval(this.saver);
    this.save();
  }

  /**
   * Writes the snapshot now if something changed (the timer's and close's call). A failed write
   * goes to `onError` and is tried again at the next call.
   */
  save(): void {
    if (!this.snapshot || !this.changed) return;
    try {
      this.writeSnapshot(this.snapshot.path);
      this.changed = false;
    } catch (err) {
      this.snapshot.onError?.(err);
    }
  }

  /** The live counters but the per-request markers, through a temporary file renamed over the old one. */
  private writeSnapshot(path: string): void {
    const now = this.now();
    const entries: SnapshotFile['entries'] = [];
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now && !NOT_SNAPSHOTTED.test(key)) entries.push([key, entry.counter, [...entry.fields], entry.expiresAt]);
    }
    const file: SnapshotFile = { version: 1, entries };
    const temporary = `${path}.tmp`;
    writeFileSync(temporary, JSON.stringify(file), { mode: 0o600 });
    renameSync(temporary, path);
  }

  /**
   * Reads a snapshot: the live entries, with no reservation (`r`): the requests that held one ended
   * with the previous process and will never settle. A missing file is a first start; an unreadable
   * one is reported and counting starts empty, as before snapshots existed.
   */
  private restore(path: string): void {
    let file: SnapshotFile;
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as SnapshotFile;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') this.snapshot?.onError?.(err);
      return;
    }
    if (file?.version !== 1 || !Array.isArray(file.entries)) return;
    const now = this.now();
    for (const [key, counter, fields, expiresAt] of file.entries) {
      if (typeof key !== 'string' || !(expiresAt > now)) continue;
      const restored = new Map(Array.isArray(fields) ? fields.filter(([name]) => name !== 'r') : []);
      this.entries.set(key, { counter: Number(counter) || 0, fields: restored, expiresAt });
    }
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
