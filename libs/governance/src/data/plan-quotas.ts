import { Tier } from './tiers';

/**
 * Plan daily request quotas (stage 0, DECISIONS.md "Gaps filled"). `null` means unlimited.
 * Counted per organization and UTC calendar day; a breach is 429 `plan_limit_exceeded`.
 */
export const PLAN_DAILY_REQUEST_QUOTAS: Readonly<Record<Tier, number | null>> = Object.freeze({
  free: 100,
  starter: 10_000,
  growth: 100_000,
  enterprise: null,
});

export type PlanQuotaOverrides = Partial<Record<Tier, number | null>>;

/** Daily request quota of a plan; deployment configuration may override single tiers. */
export function planDailyRequestQuota(tier: Tier, overrides?: PlanQuotaOverrides): number | null {
  if (overrides && Object.prototype.hasOwnProperty.call(overrides, tier)) {
    const value = overrides[tier];
    if (value === null || (typeof value === 'number' && Number.isInteger(value) && value >= 0)) return value;
  }
  return PLAN_DAILY_REQUEST_QUOTAS[tier];
}

/** Whether one more request fits: `used` is the count before this request. */
export function withinDailyQuota(quota: number | null, used: number): boolean {
  return quota === null || used < quota;
}

/** The organization statuses that pass stage 0 (`subscription_inactive` otherwise). */
export const ACTIVE_SUBSCRIPTION_STATUSES: readonly string[] = Object.freeze(['active', 'trialing']);

export function isSubscriptionActive(status: string | null | undefined): boolean {
  return typeof status === 'string' && ACTIVE_SUBSCRIPTION_STATUSES.includes(status);
}
