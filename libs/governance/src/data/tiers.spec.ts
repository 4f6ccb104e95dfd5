import { ABSOLUTE_MAX_BODY_BYTES, BYTES_PER_MB, DEFAULT_BUDGET_WARNING_THRESHOLDS } from './limits';
import { PLAN_ENTITLEMENTS, checkEntitlements, isModelOnPlan } from './plan-entitlements';
import { PLAN_DAILY_REQUEST_QUOTAS, isSubscriptionActive, planDailyRequestQuota, withinDailyQuota } from './plan-quotas';
import { TIERS, TIER_DEFAULTS, resolveTier, tierDefaults } from './tiers';

describe('tier defaults', () => {
  it('holds the SPEC table', () => {
    expect(TIER_DEFAULTS).toEqual({
      free: { rpm_limit: 10, max_cost_per_request: 0.25, daily_budget: 10, monthly_budget: 50, hitl_cost_threshold: 1, max_body_bytes: 1 * BYTES_PER_MB },
      starter: { rpm_limit: 60, max_cost_per_request: 0.5, daily_budget: 25, monthly_budget: 250, hitl_cost_threshold: 3, max_body_bytes: 10 * BYTES_PER_MB },
      growth: { rpm_limit: 300, max_cost_per_request: 2, daily_budget: 100, monthly_budget: 2000, hitl_cost_threshold: 10, max_body_bytes: 50 * BYTES_PER_MB },
      enterprise: {
        rpm_limit: 5000,
        max_cost_per_request: 10,
        daily_budget: 2000,
        monthly_budget: 50000,
        hitl_cost_threshold: 50,
        max_body_bytes: 100 * BYTES_PER_MB,
      },
    });
    expect(TIERS).toEqual(['free', 'starter', 'growth', 'enterprise']);
  });

  it('is frozen data; tierDefaults hands out copies', () => {
    expect(Object.isFrozen(TIER_DEFAULTS.free)).toBe(true);
    const copy = tierDefaults('free');
    copy.rpm_limit = 999;
    expect(TIER_DEFAULTS.free.rpm_limit).toBe(10);
  });

  it('resolves names and the pro/team aliases, case-insensitively', () => {
    expect(resolveTier('growth')).toBe('growth');
    expect(resolveTier(' Enterprise ')).toBe('enterprise');
    expect(resolveTier('pro')).toBe('starter');
    expect(resolveTier('PRO')).toBe('starter');
    expect(resolveTier('team')).toBe('growth');
  });

  it('maps the rejected 1,000-RPM Team tier to growth and knows no other tiers', () => {
    expect(resolveTier('Team')).toBe('growth');
    expect(TIER_DEFAULTS[resolveTier('Team') ?? 'free'].rpm_limit).toBe(300);
    expect(resolveTier('platinum')).toBeUndefined();
    expect(resolveTier('')).toBeUndefined();
    expect(resolveTier(undefined)).toBeUndefined();
    expect(resolveTier('toString')).toBeUndefined();
  });

  it('has the absolute body cap and default warning thresholds', () => {
    expect(ABSOLUTE_MAX_BODY_BYTES).toBe(209_715_200);
    expect(DEFAULT_BUDGET_WARNING_THRESHOLDS).toEqual([50, 75, 90]);
  });
});

describe('plan quotas', () => {
  it('holds the decided daily request quotas', () => {
    expect(PLAN_DAILY_REQUEST_QUOTAS).toEqual({ free: 100, starter: 10_000, growth: 100_000, enterprise: null });
  });

  it('lets configuration override single tiers and ignores invalid overrides', () => {
    expect(planDailyRequestQuota('free')).toBe(100);
    expect(planDailyRequestQuota('free', { free: 500 })).toBe(500);
    expect(planDailyRequestQuota('growth', { free: 500 })).toBe(100_000);
    expect(planDailyRequestQuota('starter', { starter: null })).toBeNull();
    expect(planDailyRequestQuota('starter', { starter: -1 })).toBe(10_000);
  });

  it('counts the request being made against the quota', () => {
    expect(withinDailyQuota(100, 99)).toBe(true);
    expect(withinDailyQuota(100, 100)).toBe(false);
    expect(withinDailyQuota(null, 10 ** 9)).toBe(true);
  });

  it('passes active and trialing subscriptions only', () => {
    expect(isSubscriptionActive('active')).toBe(true);
    expect(isSubscriptionActive('trialing')).toBe(true);
    expect(isSubscriptionActive('past_due')).toBe(false);
    expect(isSubscriptionActive('canceled')).toBe(false);
    expect(isSubscriptionActive(undefined)).toBe(false);
  });
});

describe('plan entitlements', () => {
  const request = { stream: false, max_tokens: 4096, runner: false, hitl_bypass: false };

  it('limits free streaming to 4,096 max tokens', () => {
    expect(checkEntitlements('free', { ...request, stream: true, max_tokens: 4096 })).toBeNull();
    expect(checkEntitlements('free', { ...request, stream: true, max_tokens: 4097 })).toEqual({
      feature: 'streaming_max_tokens',
      message: 'Streaming with more than 4096 max tokens is not available on the free plan',
    });
    expect(checkEntitlements('free', { ...request, stream: false, max_tokens: 32_000 })).toBeNull();
    expect(checkEntitlements('starter', { ...request, stream: true, max_tokens: 32_000 })).toBeNull();
  });

  it('gives runners to growth and enterprise, HITL bypass to enterprise only', () => {
    expect(checkEntitlements('free', { ...request, runner: true })?.feature).toBe('runners');
    expect(checkEntitlements('starter', { ...request, runner: true })?.feature).toBe('runners');
    expect(checkEntitlements('growth', { ...request, runner: true })).toBeNull();
    expect(checkEntitlements('growth', { ...request, hitl_bypass: true })?.feature).toBe('hitl_bypass');
    expect(checkEntitlements('enterprise', { stream: true, max_tokens: 200_000, runner: true, hitl_bypass: true })).toBeNull();
  });

  it('keeps premium model lines off the free plan only', () => {
    expect(isModelOnPlan('free', 'gpt-4o-mini')).toBe(true);
    expect(isModelOnPlan('free', 'claude-opus-4-20250514')).toBe(false);
    expect(isModelOnPlan('free', 'O1-PRO')).toBe(false);
    expect(isModelOnPlan('starter', 'claude-opus-4-20250514')).toBe(true);
    expect(PLAN_ENTITLEMENTS.enterprise.blocked_model_prefixes).toEqual([]);
  });
});
