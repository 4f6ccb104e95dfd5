import type { OrgId, Repositories } from '@svc/domain';
import { checkEntitlements, isSubscriptionActive, resolveTier } from '@svc/governance';
import { GatewayError } from '@svc/platform';

/**
 * What an organization needs before a runner is recorded: checked before anything is created, by
 * create (and so the canary's create step) and by a self-hosted registration (which records a runner
 * too).
 * - An active subscription (DECISIONS.md "Organization plan": only `active` and `trialing` pass stage
 *   0): otherwise 403 `subscription_inactive` (GW_PLAN_001), the code the gateway answers the same
 *   organization's requests with, checked first as stage 0 comes before 1.5.
 * - Managed runners on the plan (DECISIONS.md "Plan entitlement": not on free and starter):
 *   otherwise 403 `feature_not_on_plan` (GW_PLAN_004).
 */
export async function assertPlanHasRunners(repos: Repositories, orgId: OrgId): Promise<void> {
  const organization = await repos.organizations.findById(orgId);
  if (organization && !isSubscriptionActive(organization.subscription_status)) {
    throw new GatewayError(403, {
      message: `The organization's subscription is ${organization.subscription_status}; only active or trialing subscriptions can create or register runners.`,
      type: 'permission_error',
      code: 'subscription_inactive',
      gateway_error_code: 'GW_PLAN_001',
      remediation: "Reactivate the organization's subscription (settle any open invoice), then retry. Existing runners can still be read, stopped and terminated.",
    });
  }
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
