import { OrgId, PlanTier, Repositories } from '@svc/domain';
import { resolveTier, TIER_DEFAULTS } from '@svc/governance';

export interface EffectiveBudgets {
  daily_budget: number;
  monthly_budget: number;
}

/**
 * The organization's daily and monthly budgets as the gateway enforces them: its policy's
 * overrides, else its tier's defaults (SPEC.md "Tier defaults", `TIER_DEFAULTS` of the governance
 * library, the one table).
 */
export async function effectiveBudgets(repos: Pick<Repositories, 'policies'>, orgId: OrgId, plan: PlanTier): Promise<EffectiveBudgets> {
  const policy = await repos.policies.get(orgId);
  const tier = TIER_DEFAULTS[resolveTier(plan) ?? 'free'];
  return {
    daily_budget: policy?.daily_budget ?? tier.daily_budget,
    monthly_budget: policy?.monthly_budget ?? tier.monthly_budget,
  };
}
