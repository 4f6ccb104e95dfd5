import { allocateMicros, exactMicros, fromMicros, roundUsd } from '@svc/domain';
import { round2 } from '../common/org-errors';

/** Money of the cost report: 6 decimals, as docs/org-api.md documents for it (`roundUsd` elsewhere shows 10). */
const COST_REPORT_DECIMALS = 6;
const money = (value: number): number => roundUsd(value, COST_REPORT_DECIMALS);

export const PERIODS = { '24h': 1, '7d': 7, '30d': 30, '90d': 90 } as const;
export type Period = keyof typeof PERIODS;
export const GRANULARITIES = ['hourly', 'daily', 'weekly'] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export type Trend = 'increasing' | 'stable' | 'decreasing';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Relative change between the two halves of the period beyond which the trend is not `stable`. */
export const TREND_THRESHOLD = 0.1;

export interface Bucket {
  /** UTC hour (`2025-01-31T13`) or day (`2025-01-31`), as grouped by the store. */
  bucket: string;
  cost: number;
  requests: number;
}

export interface CostReportInput {
  period: Period;
  granularity: Granularity;
  now: Date;
  totalCost: number;
  /** Cost of the first and second half of the period (trend). */
  halves: [number, number];
  /**
   * `requests`/`executions`: proxied (not blocked) requests; `calls`: the provider calls among them
   * (a provider answered: not a refusal before governance, an idempotent replay or a failure before
   * the provider's headers); `call_latency_ms`: the sum of those calls' `latency_ms`.
   */
  byProvider: { key: string | null; cost: number; requests: number; calls: number }[];
  byAgent: { key: string | null; cost: number; executions: number; calls: number; call_latency_ms: number }[];
  /** Hourly buckets for `hourly`, daily buckets otherwise. */
  buckets: Bucket[];
  monthlyBudget: number;
}

export interface CostReport {
  period: Period;
  granularity: Granularity;
  from: string;
  to: string;
  total_cost: number;
  by_provider: Record<string, { cost: number; requests: number; avg_cost_per_request: number }>;
  by_agent: Record<string, { cost: number; executions: number; avg_latency_ms: number }>;
  time_series: { date: string; cost: number; requests: number }[];
  projections: { monthly_estimate: number; trend: Trend; budget_utilization: number };
}

export function periodRange(period: Period, now: Date): { from: Date; to: Date; mid: Date } {
  const span = PERIODS[period] * DAY;
  return { from: new Date(now.getTime() - span), to: now, mid: new Date(now.getTime() - span / 2) };
}

/** The series keys covering [from, to]: UTC hours, days, or ISO weeks (their Monday). */
export function seriesKeys(from: Date, to: Date, granularity: Granularity): string[] {
  const keys: string[] = [];
  const step = granularity === 'hourly' ? HOUR : granularity === 'daily' ? DAY : 7 * DAY;
  let cursor = granularity === 'hourly' ? floorHour(from) : granularity === 'daily' ? floorDay(from) : mondayOf(from);
  while (cursor <= to.getTime()) {
    keys.push(seriesKey(new Date(cursor), granularity));
    cursor += step;
  }
  return keys;
}

/** `2025-01-31T13:00:00Z` (hourly), `2025-01-31` (daily) or the Monday `2025-01-27` (weekly). */
export function seriesKey(date: Date, granularity: Granularity): string {
  if (granularity === 'hourly') return `${new Date(floorHour(date)).toISOString().slice(0, 13)}:00:00Z`;
  if (granularity === 'daily') return date.toISOString().slice(0, 10);
  return new Date(mondayOf(date)).toISOString().slice(0, 10);
}

/** Up more than 10 % from the first half of the period to the second: increasing; down more: decreasing. */
export function trendOf(first: number, second: number): Trend {
  if (first <= 0) return second > 0 ? 'increasing' : 'stable';
  const change = (second - first) / first;
  if (change > TREND_THRESHOLD) return 'increasing';
  if (change < -TREND_THRESHOLD) return 'decreasing';
  return 'stable';
}

/**
 * SPEC.md "GET /api/v1/admin/metrics/cost-optimization" from grouped usage. Costs are the `cost`
 * of proxied requests; `requests`/`executions` count proxied (not blocked) requests, idempotent
 * replays and refusals before governance included; `avg_cost_per_request` and `avg_latency_ms` are
 * per provider call (the replays and refusals cost nothing and answer at once: they would dilute
 * both). The monthly estimate is the period's average daily cost times 30; budget utilization is
 * that estimate as a percentage of the effective monthly budget. `total_cost` is the period's cost
 * rounded once to the micro-dollar, and the costs of `by_provider`, `by_agent` and `time_series`
 * are each grouping's exact sums in whole micro-dollars adding up to it (largest remainder, as
 * billing shows its groupings: `allocateMicros`).
 */
export function buildCostReport(input: CostReportInput): CostReport {
  const { from, to } = periodRange(input.period, input.now);
  const totalMicros = Math.round(exactMicros(input.totalCost));
  const byProvider = keyedReport(input.byProvider, 'unknown', totalMicros, (row, cost) => ({
    cost,
    requests: row.requests,
    avg_cost_per_request: row.calls > 0 ? money(row.cost / row.calls) : 0,
  }));
  const byAgent = keyedReport(input.byAgent, 'unattributed', totalMicros, (row, cost) => ({
    cost,
    executions: row.executions,
    avg_latency_ms: round2(row.calls > 0 ? row.call_latency_ms / row.calls : 0),
  }));
  const series = new Map(seriesKeys(from, to, input.granularity).map((key) => [key, { cost: 0, requests: 0 }]));
  for (const bucket of input.buckets) {
    const date = new Date(bucket.bucket.length === 10 ? `${bucket.bucket}T00:00:00Z` : `${bucket.bucket}:00:00Z`);
    const slot = series.get(seriesKey(date, input.granularity));
    if (!slot) continue;
    slot.cost += bucket.cost;
    slot.requests += bucket.requests;
  }
  const monthlyEstimate = (input.totalCost / PERIODS[input.period]) * 30;
  const slots = [...series];
  const seriesMicros = shownMicros(
    slots.map(([, slot]) => slot.cost),
    totalMicros,
  );
  return {
    period: input.period,
    granularity: input.granularity,
    from: from.toISOString(),
    to: to.toISOString(),
    total_cost: fromMicros(totalMicros),
    by_provider: byProvider,
    by_agent: byAgent,
    time_series: slots.map(([date, slot], i) => ({ date, cost: fromMicros(seriesMicros[i]), requests: slot.requests })),
    projections: {
      monthly_estimate: money(monthlyEstimate),
      trend: trendOf(input.halves[0], input.halves[1]),
      budget_utilization: input.monthlyBudget > 0 ? round2((monthlyEstimate / input.monthlyBudget) * 100) : 0,
    },
  };
}

/**
 * An object of name to figures, costliest first. Rows without a name are reported under
 * `fallback`, merged (sums added) with a row that bears that name, as agent health groups them.
 * `render` gets each row's cost in USD, in whole micro-dollars adding up to `totalMicros`.
 * Names are data (`X-SVC-Agent` is any printable text): built with `Object.fromEntries`, so a
 * name such as `__proto__` is a key like any other instead of a prototype assignment.
 */
function keyedReport<R extends { key: string | null; cost: number }, O>(rows: readonly R[], fallback: string, totalMicros: number, render: (row: R, cost: number) => O): Record<string, O> {
  const merged = new Map<string, R>();
  for (const row of rows) {
    const name = row.key ?? fallback;
    const seen = merged.get(name);
    merged.set(name, seen ? sumRows(seen, row) : { ...row, key: name });
  }
  const entries = [...merged];
  const shown = shownMicros(
    entries.map(([, row]) => row.cost),
    totalMicros,
  );
  const sorted = entries.map(([name, row], i) => ({ name, row, micros: shown[i] })).sort((x, y) => y.micros - x.micros || y.row.cost - x.row.cost || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return Object.fromEntries(sorted.map(({ name, row, micros }) => [name, render(row, fromMicros(micros))]));
}

/**
 * A grouping's costs in whole micro-dollars adding up to `totalMicros` (`allocateMicros`) when its
 * rows are the period's spend (their sum rounds to it, whatever the order of the float additions);
 * rows that are not (they cannot be, but the figures come from separate queries) are shown adding
 * up to their own sum, rather than given micro-dollars they do not have.
 */
function shownMicros(costs: readonly number[], totalMicros: number): number[] {
  const own = exactMicros(costs.reduce((sum, cost) => sum + cost, 0));
  return allocateMicros(costs, Math.abs(own - totalMicros) < 1 ? totalMicros : undefined);
}

/** Two rows of one name: every numeric figure added. */
function sumRows<R extends object>(a: R, b: R): R {
  const sum = { ...a } as Record<string, unknown>;
  for (const [field, value] of Object.entries(b)) {
    if (typeof value === 'number') sum[field] = (sum[field] as number) + value;
  }
  return sum as R;
}

function floorHour(date: Date): number {
  return Math.floor(date.getTime() / HOUR) * HOUR;
}

function floorDay(date: Date): number {
  return Math.floor(date.getTime() / DAY) * DAY;
}

function mondayOf(date: Date): number {
  const day = floorDay(date);
  return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
}
