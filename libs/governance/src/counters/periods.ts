/**
 * UTC periods of the counters: the fixed one-minute rate-limit window, the calendar day and
 * month of the budgets, and the ISO week of weekly budget nodes. Money crosses into the counter
 * stores as integer micro-dollars, so Redis and the memory store add exactly the same numbers.
 */

export type ResetPeriod = 'daily' | 'weekly' | 'monthly';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Number of the fixed one-minute window holding `ms`. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / MINUTE_MS);
}

/** Unix time (seconds) at which the window holding `ms` ends. */
export function minuteResetAt(ms: number): number {
  return (minuteOf(ms) + 1) * 60;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `20250131` */
export function dayKey(date: Date): string {
  return `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}`;
}

/** `202501` */
export function monthKey(date: Date): string {
  return `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}`;
}

/** ISO 8601 week, `2025W05` (weeks start on Monday; week 1 holds the year's first Thursday). */
export function weekKey(date: Date): string {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const weekday = day.getUTCDay() || 7;
  day.setUTCDate(day.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / DAY_MS + 1) / 7);
  return `${day.getUTCFullYear()}W${pad(week)}`;
}

export function periodKey(period: ResetPeriod, date: Date): string {
  if (period === 'daily') return dayKey(date);
  if (period === 'weekly') return weekKey(date);
  return monthKey(date);
}

/** How long a period's counters are kept: the period plus a margin for late settles and reporting. */
export const PERIOD_TTL_SECONDS: Readonly<Record<ResetPeriod, number>> = Object.freeze({
  daily: 2 * 86_400,
  weekly: 9 * 86_400,
  monthly: 33 * 86_400,
});

/** Seconds until the next UTC midnight (at least 1): `Retry-After` of a daily refusal. */
export function secondsUntilNextDay(date: Date): number {
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - date.getTime()) / 1000));
}

/** USD as integer micro-dollars, rounded to the nearest (spend, limits). */
export function toMicros(usd: number): number {
  return Number.isFinite(usd) && usd > 0 ? Math.round(usd * 1_000_000) : 0;
}

/**
 * Settled costs as integer micro-dollars, without losing what rounding leaves: each organization's
 * remainder (at most half a micro-dollar either way) is carried into its next settle. Rounding each
 * alone, 1,000 requests of $0.0000123 (12.3 micro-dollars) counted $0.012 while their usage records
 * add up to $0.0123; carried, the counters stay within half a micro-dollar of the records per
 * organization and process. Past `maxOrgs` organizations the remainders are dropped (each under
 * half a micro-dollar).
 */
export class MicroCarry {
  private readonly carried = new Map<string, number>();

  constructor(private readonly maxOrgs = 100_000) {}

  take(orgId: string, usd: number): number {
    if (!(Number.isFinite(usd) && usd > 0)) return 0;
    const exact = usd * 1_000_000 + (this.carried.get(orgId) ?? 0);
    const micros = Math.max(0, Math.round(exact));
    if (this.carried.size >= this.maxOrgs && !this.carried.has(orgId)) this.carried.clear();
    this.carried.set(orgId, exact - micros);
    return micros;
  }
}

/** USD as integer micro-dollars rounded up (reservations: never reserve less than the estimate). */
export function toMicrosUp(usd: number): number {
  return Number.isFinite(usd) && usd > 0 ? Math.ceil(usd * 1_000_000 - 1e-6) : 0;
}

export function fromMicros(micros: number): number {
  return micros / 1_000_000;
}
