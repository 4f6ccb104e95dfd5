import { defineCollection } from '../store/types';

export const PLAN_TIERS = ['free', 'starter', 'growth', 'enterprise'] as const;
export type PlanTier = (typeof PLAN_TIERS)[number];

/** Accepted tier aliases (DECISIONS.md: `pro` = starter, `team` = growth). */
export const PLAN_ALIASES: Readonly<Record<string, PlanTier>> = Object.freeze({ pro: 'starter', team: 'growth' });

/** A tier name or alias as the canonical tier; null when unknown. */
export function normalizePlan(plan: string): PlanTier | null {
  const lower = plan.trim().toLowerCase();
  if ((PLAN_TIERS as readonly string[]).includes(lower)) return lower as PlanTier;
  return PLAN_ALIASES[lower] ?? null;
}

export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Only these pass governance stage 0 (DECISIONS.md "Organization plan"). */
export function subscriptionIsActive(status: SubscriptionStatus): boolean {
  return status === 'active' || status === 'trialing';
}

export interface OrganizationEntity {
  /** `org_...` */
  _id: string;
  name: string;
  plan: PlanTier;
  subscription_status: SubscriptionStatus;
  created_at: Date;
  updated_at: Date;
}

export const ORGANIZATIONS = defineCollection<OrganizationEntity>('organizations', [
  { fields: { created_at: 1 }, comment: 'organizations oldest first (bootstrap, operator listings)' },
]);
