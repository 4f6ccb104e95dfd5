import type { PlanQuotaOverrides } from '../data/plan-quotas';
import { resolveTier } from '../data/tiers';

/**
 * `PLAN_DAILY_QUOTAS` (validated at boot by the config schema): comma-separated `tier=count`
 * pairs overriding DECISIONS.md's plan daily request quotas, `unlimited` for none, e.g.
 * `free=500,starter=20000,enterprise=unlimited`. Aliases (`pro`, `team`) name their tier.
 */
export function parsePlanQuotas(value: string | undefined): PlanQuotaOverrides {
  const overrides: PlanQuotaOverrides = {};
  for (const pair of (value ?? '').split(',')) {
    const [name, raw] = pair.split('=').map((part) => part?.trim() ?? '');
    const tier = resolveTier(name);
    if (!tier || raw === undefined || raw === '') continue;
    if (raw.toLowerCase() === 'unlimited') overrides[tier] = null;
    else if (/^\d+$/.test(raw)) overrides[tier] = Number(raw);
  }
  return overrides;
}
