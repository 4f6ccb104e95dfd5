import type { Principal } from '@svc/auth';
import { PolicyEntity, policyOverrides } from '@svc/domain';
import { defaultPolicy, effectivePolicy, GovernancePolicy, PolicyOverrides, resolveTier, Tier } from '@svc/governance';
import { iso } from '../common/admin-query';

/** `GET /gateway/admin/policies`: the policy in force, the organization's overrides and its tier's defaults side by side. */
export interface PolicyView {
  org_id: string;
  /** The organization's plan tier, whose defaults apply to every field not overridden. */
  tier: Tier;
  /** What the governance chain applies on the next request. */
  effective: GovernancePolicy;
  /** Only the stored overrides. */
  custom: PolicyOverrides;
  tier_defaults: GovernancePolicy;
  overridden_fields: string[];
  /** The preset last applied with apply-preset, if the policy came from one. */
  preset: string | null;
  has_custom_policy: boolean;
  created_at: string | null;
  updated_at: string | null;
}

export function tierOf(principal: Pick<Principal, 'organization'>): Tier {
  return resolveTier(principal.organization.plan) ?? 'free';
}

export function toPolicyView(orgId: string, tier: Tier, stored: PolicyEntity | null): PolicyView {
  const custom = policyOverrides(stored) as PolicyOverrides;
  return {
    org_id: orgId,
    tier,
    effective: effectivePolicy(tier, custom),
    custom,
    tier_defaults: defaultPolicy(tier),
    overridden_fields: Object.keys(custom),
    preset: stored?.preset ?? null,
    has_custom_policy: stored !== null,
    created_at: iso(stored?.created_at),
    updated_at: iso(stored?.updated_at),
  };
}
