import type { PlanTier } from '../organizations/organization.entity';
import { defineCollection } from '../store/types';

export const PII_ACTIONS = ['block', 'flag', 'allow'] as const;
export type PiiAction = (typeof PII_ACTIONS)[number];

/**
 * The fields an organization may override; anything absent falls back to its tier's defaults
 * (SPEC.md "Governance policy", plus DECISIONS.md's extra fields). Only overrides are stored.
 */
export interface PolicyOverrides {
  rpm_limit?: number;
  daily_budget?: number;
  monthly_budget?: number;
  max_cost_per_request?: number;
  pii_scan_enabled?: boolean;
  pii_action?: PiiAction;
  /** Empty = every model allowed. */
  allowed_models?: string[];
  hitl_cost_threshold?: number;
  /** Request body cap in bytes (absolute cap 200 MB, enforced by the feature). */
  max_body_bytes?: number;
  /** Reasoning token cap (stage 1.7); absent = none. */
  max_reasoning_tokens?: number;
  /** Skill allowlist (stage 5.5); empty = every skill allowed. */
  allowed_skills?: string[];
  /** Budget warning thresholds in percent; default 50/75/90. */
  budget_warning_thresholds?: number[];
}

export const POLICY_FIELDS = [
  'rpm_limit',
  'daily_budget',
  'monthly_budget',
  'max_cost_per_request',
  'pii_scan_enabled',
  'pii_action',
  'allowed_models',
  'hitl_cost_threshold',
  'max_body_bytes',
  'max_reasoning_tokens',
  'allowed_skills',
  'budget_warning_thresholds',
] as const satisfies readonly (keyof PolicyOverrides)[];

export interface PolicyEntity extends PolicyOverrides {
  /** `pol_...` */
  _id: string;
  org_id: string;
  /** The tier preset last applied with apply-preset, if any. */
  preset: PlanTier | null;
  created_at: Date;
  updated_at: Date;
}

export const POLICIES = defineCollection<PolicyEntity>('policies', [
  { fields: { org_id: 1 }, unique: true, name: 'org_unique', comment: 'the policy of an organization (one per org), read on every request' },
]);

/** Only the override fields of a policy document. */
export function policyOverrides(policy: PolicyEntity | null): PolicyOverrides {
  if (!policy) return {};
  const out: Record<string, unknown> = {};
  for (const field of POLICY_FIELDS) if (policy[field] !== undefined) out[field] = policy[field];
  return out as PolicyOverrides;
}
