import { BYTES_PER_MB } from './limits';

/**
 * Tier defaults (SPEC.md "Tier defaults"). An organization without a stored policy, or a policy
 * field left unset, gets these values. Money is USD.
 */

export const TIERS = ['free', 'starter', 'growth', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export interface TierDefaults {
  /** Requests per minute per organization. */
  rpm_limit: number;
  /** Cap on one request's cost estimate. */
  max_cost_per_request: number;
  daily_budget: number;
  monthly_budget: number;
  /** An estimate above this needs human approval. */
  hitl_cost_threshold: number;
  max_body_bytes: number;
}

export const TIER_DEFAULTS: Readonly<Record<Tier, Readonly<TierDefaults>>> = Object.freeze({
  free: Object.freeze({
    rpm_limit: 10,
    max_cost_per_request: 0.25,
    daily_budget: 10,
    monthly_budget: 50,
    hitl_cost_threshold: 1,
    max_body_bytes: 1 * BYTES_PER_MB,
  }),
  starter: Object.freeze({
    rpm_limit: 60,
    max_cost_per_request: 0.5,
    daily_budget: 25,
    monthly_budget: 250,
    hitl_cost_threshold: 3,
    max_body_bytes: 10 * BYTES_PER_MB,
  }),
  growth: Object.freeze({
    rpm_limit: 300,
    max_cost_per_request: 2,
    daily_budget: 100,
    monthly_budget: 2000,
    hitl_cost_threshold: 10,
    max_body_bytes: 50 * BYTES_PER_MB,
  }),
  enterprise: Object.freeze({
    rpm_limit: 5000,
    max_cost_per_request: 10,
    daily_budget: 2000,
    monthly_budget: 50000,
    hitl_cost_threshold: 50,
    max_body_bytes: 100 * BYTES_PER_MB,
  }),
});

/**
 * Accepted alternative tier names. The separate 1,000-RPM `Team` tier of one guide is rejected
 * (DECISIONS.md "Conflicts resolved"): `team` is growth.
 */
export const TIER_ALIASES: Readonly<Record<string, Tier>> = Object.freeze({ pro: 'starter', team: 'growth' });

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}

/** Canonical tier for a name or alias (case and surrounding spaces ignored); undefined when unknown. */
export function resolveTier(name: string | null | undefined): Tier | undefined {
  if (typeof name !== 'string') return undefined;
  const key = name.trim().toLowerCase();
  if (isTier(key)) return key;
  return Object.prototype.hasOwnProperty.call(TIER_ALIASES, key) ? TIER_ALIASES[key] : undefined;
}

export function tierDefaults(tier: Tier): TierDefaults {
  return { ...TIER_DEFAULTS[tier] };
}
