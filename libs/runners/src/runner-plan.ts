import type { OrgId, Repositories } from '@svc/domain';
import { checkEntitlements, resolveTier } from '@svc/governance';
import { GatewayError } from '@svc/platform';

/**
 * DECISIONS.md "Plan entitlement": managed runners are a plan feature (not on free and starter).
 * Checked before anything is created, by create (and so the canary's create step) and by a
 * self-hosted registration (which records a runner too). 403 `feature_not_on_plan` (GW_PLAN_004).
 */
export async function assertPlanHasRunners(repos: Repositories, orgId: OrgId): Promise<void> {
  const organization = await repos.organizations.findById(orgId);
  const denial = checkEntitlements(resolveTier(organization?.plan ?? 'free') ?? 'free', { stream: false, max_tokens: 0, runner: true, hitl_bypass: false });
  if (!denial) return;
  throw new GatewayError(403, {
    message: denial.message,
    type: 'permission_error',
    code: 'feature_not_on_plan',
    gateway_error_code: 'GW_PLAN_004',
    remediation: 'Move the organization to a plan with managed runners (growth or enterprise).',
  });
}
