/**
 * The counter store of the governance chain: one atomic `admit` per request before the upstream
 * call (stages 0, 1, 2, 2.5 and 3 in stage order, stopping at the first refusal) and one atomic
 * `settle` after it. Two implementations with identical semantics: Redis (one Lua script each)
 * and memory (the embedded mode, and the fallback while Redis is unreachable).
 * Money is integer micro-dollars throughout.
 */

/** How far `admit` goes; later counter stages are not touched (an earlier pure stage refused). */
export const AdmitLevel = Object.freeze({
  /** Read only: the values the headers need. */
  Peek: 0,
  /** Stage 0's quota check, nothing counted. */
  Quota: 1,
  /** Stages 0 and 1: quota and RPM checked; on success both count the request. */
  Rate: 2,
  /** Stages 0 to 3: the estimate is also reserved against every budget, all or nothing. */
  Reserve: 3,
} as const);
export type AdmitLevel = (typeof AdmitLevel)[keyof typeof AdmitLevel];

/** A spend accumulator (`s` spent, `r` reserved) with a limit. */
export interface Accumulator {
  key: string;
  limitMicros: number;
  ttlSeconds: number;
  /** Spent value to start from when the accumulator does not exist yet (0: none). */
  seedMicros: number;
}

export interface AdmitPlan {
  orgId: string;
  level: AdmitLevel;
  /** Marker of the release of this reservation, should Redis reserve after the caller stopped waiting. */
  releaseMarkerKey: string;
  /** Spend of all organizations today (see SettlePlan). */
  todayKey: string;
  quota: { key: string; ttlSeconds: number; /** null: unlimited. */ limit: number | null };
  rpm: { key: string; keysKey: string; keyField: string; busyKey: string; limit: number; ttlSeconds: number };
  day: Accumulator;
  month: Accumulator;
  /** Stage 2 (level Reserve). */
  estimateMicros: number;
  /** Daily named budgets with auto_stop: the smallest limit, or null. */
  autoStopMicros: number | null;
  /** Per-day map of org -> daily budget, for `todayCost`. */
  budgetsKey: string;
  budgetsTtlSeconds: number;
  /** Stage 2.5: org, team and key nodes, in that order. */
  nodes: Accumulator[];
  /** Stage 3. */
  session: Accumulator | null;
}

export type AdmitCode = 'ok' | 'quota' | 'rpm' | 'daily_budget' | 'auto_stop' | 'monthly_budget' | 'node' | 'session';

export const ADMIT_CODES: readonly AdmitCode[] = ['ok', 'quota', 'rpm', 'daily_budget', 'auto_stop', 'monthly_budget', 'node', 'session'];

export interface AdmitResult {
  code: AdmitCode;
  /** Requests admitted in the current minute (after this one when admitted). */
  rpmCount: number;
  /** Plan quota used today (before this request when refused). */
  quotaUsed: number;
  daySpentMicros: number;
  dayReservedMicros: number;
  monthSpentMicros: number;
  monthReservedMicros: number;
  /** `node`: index into plan.nodes; `session`: 0. */
  deniedIndex: number;
  /** `node`/`session`: spent plus reserved of the refusing accumulator. */
  deniedUsedMicros: number;
}

/** One accumulator to settle, with its warning thresholds. */
export interface SettleTarget {
  key: string;
  ttlSeconds: number;
  /** 0: no warnings. */
  limitMicros: number;
  /** Where thresholds already fired this period are remembered. */
  warnKey: string;
  /** Percentages; each fires once per period. */
  thresholds: number[];
}

export interface SettlePlan {
  /** Makes settle idempotent: a second settle with the same marker does nothing. */
  markerKey: string;
  markerTtlSeconds: number;
  /** What was reserved (0 for a spend-only replay). */
  reservedMicros: number;
  actualMicros: number;
  /** Day, month, then nodes, then the session: every accumulator the reservation touched. */
  targets: SettleTarget[];
  /** Spend of all organizations today, for `todayCost`. */
  todayKey: string;
  todayTtlSeconds: number;
}

export interface SettleResult {
  /** false: already settled. */
  applied: boolean;
  /** Spent after the settle, per target. */
  spentMicros: number[];
  /** Thresholds that fired now, per target. */
  fired: number[][];
}

export interface RateStatus {
  count: number;
  keys: Record<string, number>;
}

export interface CounterStore {
  readonly kind: 'redis' | 'memory';
  admit(plan: AdmitPlan): Promise<AdmitResult>;
  settle(plan: SettlePlan): Promise<SettleResult>;
  rateStatus(rpmKey: string, keysKey: string): Promise<RateStatus>;
  /** Organizations by requests in the minute, busiest first. */
  busiest(busyKey: string, limit: number): Promise<{ orgId: string; count: number }[]>;
  /** Spend of all organizations today and the sum of the daily budgets of those with traffic. */
  today(todayKey: string, budgetsKey: string): Promise<{ spentMicros: number; budgetsMicros: number }>;
  close(): Promise<void>;
}
