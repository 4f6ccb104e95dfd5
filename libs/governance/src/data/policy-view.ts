import { ApiProperty } from '@nestjs/swagger';
import type { Principal } from '@svc/auth';
import { PolicyEntity, policyOverrides } from '@svc/domain';
import { defaultPolicy, effectivePolicy, GovernancePolicy, PolicyOverrides } from './policy';
import type { PolicyFieldError } from './policy-input';
import { resolveTier, Tier, TIERS } from './tiers';

/**
 * An organization's governance policy as the admin surfaces show it (`GET /gateway/admin/policies`,
 * the organization API's `PATCH /api/v1/admin/gateway/policy/{org_id}`): the policy in force, the
 * organization's overrides and its tier's defaults side by side.
 */
export class PolicyView {
  @ApiProperty()
  org_id!: string;
  /** The organization's plan tier, whose defaults apply to every field not overridden. */
  @ApiProperty({ enum: TIERS, description: "The organization's plan tier, whose defaults apply to every field not overridden" })
  tier!: Tier;
  /** What the governance chain applies on the next request. */
  @ApiProperty({ type: () => GovernancePolicy, description: 'What the governance chain applies on the next request' })
  effective!: GovernancePolicy;
  /** Only the stored overrides. */
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Only the stored overrides (any subset of the policy fields)' })
  custom!: PolicyOverrides;
  @ApiProperty({ type: () => GovernancePolicy, description: "The tier's defaults" })
  tier_defaults!: GovernancePolicy;
  @ApiProperty({ type: [String] })
  overridden_fields!: string[];
  /** The preset last applied with apply-preset, if the policy came from one. */
  @ApiProperty({ type: String, nullable: true, description: 'The preset last applied with apply-preset, if the policy came from one' })
  preset!: string | null;
  @ApiProperty()
  has_custom_policy!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  created_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  updated_at!: string | null;
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
    created_at: stored?.created_at ? stored.created_at.toISOString() : null,
    updated_at: stored?.updated_at ? stored.updated_at.toISOString() : null,
  };
}

/**
 * A refused policy write (the errors of `normalizePolicyInput`) in words, for each surface's own
 * 400: one message naming every rejected field, and `param`, the first of them. Field names take
 * `prefix` (`draft_policy.rpm_limit`); the body itself is named `body` (or the prefix's field).
 */
export function describePolicyErrors(errors: PolicyFieldError[], prefix = ''): { message: string; param: string | null } {
  const name = (field: string) => (field ? `${prefix}${field}` : prefix.replace(/\.$/, ''));
  const message = errors.map((error) => `${name(error.field) || 'body'}: ${error.message}`).join('; ');
  return { message, param: name(errors[0]?.field ?? '') || null };
}
