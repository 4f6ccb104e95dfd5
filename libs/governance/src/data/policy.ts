import { ApiProperty } from '@nestjs/swagger';
import { ABSOLUTE_MAX_BODY_BYTES, DEFAULT_BUDGET_WARNING_THRESHOLDS } from './limits';
import { Tier, TIER_DEFAULTS, resolveTier } from './tiers';

export const PII_ACTIONS = ['block', 'flag', 'allow'] as const;
/** block: CRITICAL and HIGH findings block, MEDIUM is flagged; flag: nothing blocks; allow: allowed with a warning. */
export type PiiAction = (typeof PII_ACTIONS)[number];

/**
 * The governance policy in force for one organization: SPEC.md "Governance policy" plus the
 * DECISIONS.md fields (`max_reasoning_tokens`, `allowed_skills`, `budget_warning_thresholds`)
 * and the per-organization body size override. Money is USD.
 */
export class GovernancePolicy {
  @ApiProperty({ type: 'integer', description: 'Requests per minute' })
  rpm_limit!: number;
  @ApiProperty({ description: 'USD' })
  daily_budget!: number;
  @ApiProperty({ description: 'USD' })
  monthly_budget!: number;
  @ApiProperty({ description: 'USD, cap on one request estimate' })
  max_cost_per_request!: number;
  @ApiProperty()
  pii_scan_enabled!: boolean;
  @ApiProperty({ enum: PII_ACTIONS })
  pii_action!: PiiAction;
  /** Empty: every model is allowed. */
  @ApiProperty({ type: [String], description: 'Empty: every model is allowed' })
  allowed_models!: string[];
  @ApiProperty({ description: 'USD; an estimate above it needs approval' })
  hitl_cost_threshold!: number;
  /** null: no reasoning token cap (stage 1.7). */
  @ApiProperty({ type: 'integer', nullable: true, description: 'null: no reasoning token cap' })
  max_reasoning_tokens!: number | null;
  /** Empty: every skill (tool name) is allowed (stage 5.5). */
  @ApiProperty({ type: [String], description: 'Empty: every skill (tool name) is allowed' })
  allowed_skills!: string[];
  /** Percentages of a budget, ascending; each fires once per period. */
  @ApiProperty({ type: [Number], description: 'Percentages of a budget, ascending; each fires once per period' })
  budget_warning_thresholds!: number[];
  /** Capped at ABSOLUTE_MAX_BODY_BYTES. */
  @ApiProperty({ type: 'integer', description: 'Request body cap in bytes' })
  max_body_bytes!: number;
}

export const POLICY_FIELDS: readonly (keyof GovernancePolicy)[] = Object.freeze([
  'rpm_limit',
  'daily_budget',
  'monthly_budget',
  'max_cost_per_request',
  'pii_scan_enabled',
  'pii_action',
  'allowed_models',
  'hitl_cost_threshold',
  'max_reasoning_tokens',
  'allowed_skills',
  'budget_warning_thresholds',
  'max_body_bytes',
]);

/** An organization's stored overrides: any subset of the policy; `undefined` means "tier default". */
export type PolicyOverrides = { [K in keyof GovernancePolicy]?: GovernancePolicy[K] | undefined };

/** The policy of a tier with no overrides. */
export function defaultPolicy(tier: Tier): GovernancePolicy {
  const defaults = TIER_DEFAULTS[tier];
  return {
    rpm_limit: defaults.rpm_limit,
    daily_budget: defaults.daily_budget,
    monthly_budget: defaults.monthly_budget,
    max_cost_per_request: defaults.max_cost_per_request,
    pii_scan_enabled: true,
    pii_action: 'block',
    allowed_models: [],
    hitl_cost_threshold: defaults.hitl_cost_threshold,
    max_reasoning_tokens: null,
    allowed_skills: [],
    budget_warning_thresholds: [...DEFAULT_BUDGET_WARNING_THRESHOLDS],
    max_body_bytes: defaults.max_body_bytes,
  };
}

/**
 * Overlays an organization's overrides on its tier's defaults. A tier name may be an alias
 * (`pro`, `team`); an unknown tier gets the free tier's (most restrictive) defaults.
 * Overrides that are `undefined` (or `null`, except `max_reasoning_tokens` where null means
 * "no cap") keep the default. Stored overrides are expected to have passed `normalizePolicyInput`;
 * the body limit is still clamped to the absolute cap here. The result shares no arrays with the input.
 */
export function effectivePolicy(tier: Tier | string, overrides?: PolicyOverrides | null): GovernancePolicy {
  const policy = defaultPolicy(resolveTier(tier) ?? 'free');
  if (!overrides) return policy;
  const target = policy as unknown as Record<string, unknown>;
  for (const field of POLICY_FIELDS) {
    const value = overrides[field];
    if (value === undefined) continue;
    if (value === null && field !== 'max_reasoning_tokens') continue;
    target[field] = Array.isArray(value) ? [...value] : value;
  }
  policy.max_body_bytes = Math.min(policy.max_body_bytes, ABSOLUTE_MAX_BODY_BYTES);
  return policy;
}
