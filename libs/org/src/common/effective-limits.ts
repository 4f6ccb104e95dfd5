import { OrgId, PlanTier, Repositories } from '@svc/domain';

/**
 * Tier budget defaults of SPEC.md "Tier defaults" (USD). The governance library owns the full tier
 * table; these two columns are repeated here because the organization API (scope `org`) only needs
 * the budgets to report utilization. Keep them equal to `TIER_DEFAULTS` in libs/governance.
 */
export const TIER_BUDGETS: Readonly<Record<PlanTier, { daily_budget: number; monthly_budget: number }>> = Object.freeze({
  free: { daily_budget: 10, monthly_budget: 50 },
  starter: { daily_budget: 25, monthly_budget: 250 },
  growth: { daily_budget: 100, monthly_budget: 2000 },
  enterprise: { daily_budget: 2000, monthly_budget: 50000 },
});

export interface EffectiveBudgets {
  daily_budget: number;
  monthly_budget: number;
}

/** The organization's daily and monthly budgets: its policy's overrides, else its tier's defaults. */
export async function effectiveBudgets(repos: Pick<Repositories, 'policies'>, orgId: OrgId, plan: PlanTier): Promise<EffectiveBudgets> {
  const policy = await repos.policies.get(orgId);
  const tier = TIER_BUDGETS[plan] ?? TIER_BUDGETS.free;
  return {
    daily_budget: policy?.daily_budget ?? tier.daily_budget,
    monthly_budget: policy?.monthly_budget ?? tier.monthly_budget,
  };
}
