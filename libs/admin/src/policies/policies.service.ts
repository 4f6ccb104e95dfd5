import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { PolicyOverrides as StoredOverrides, policyOverrides, Repositories } from '@svc/domain';
import { describePolicyErrors, normalizePolicyInput, PolicyFieldError, PolicyOverrides, resolveTier, TIER_DEFAULTS, TIERS } from '@svc/governance';
import { BODY_NOT_OBJECT_MESSAGE, GatewayError, invalidRequest, InvalidationBus, notFound } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import type { DeletedPolicyView } from './dto/policy.dto';
import { PolicyView, tierOf, toPolicyView } from './policy-view';

/** Preset names apply-preset takes: the tiers and the legacy aliases (`pro` = starter, `team` = growth). */
export const PRESET_NAMES = [...TIERS, 'pro', 'team'] as const;

/** 400 naming every rejected field; `param` is the first (prefixed, e.g. `draft_policy.rpm_limit`). */
export function policyInvalid(errors: PolicyFieldError[], prefix = ''): GatewayError {
  const { message, param } = describePolicyErrors(errors, prefix);
  return invalidRequest(message, param);
}

/** Validated overrides in the stored form (`max_reasoning_tokens: null` means "no cap": the default). */
export function validPolicy(input: unknown, prefix = ''): PolicyOverrides {
  const result = normalizePolicyInput(input);
  if (!result.ok) throw policyInvalid(result.errors, prefix);
  const value = { ...result.value };
  if (value.max_reasoning_tokens === null) delete value.max_reasoning_tokens;
  return value;
}

/**
 * The organization's governance policy: only overrides are stored; every write publishes `policy`
 * (id = organization id) so every replica's chain applies it on the next request.
 */
@Injectable()
export class PoliciesService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
  ) {}

  async view(principal: Principal): Promise<PolicyView> {
    return toPolicyView(principal.orgId, tierOf(principal), await this.repositories.policies.get(principal.orgId));
  }

  /** Create or replace: the body's fields become the whole policy; absent ones revert to tier defaults. */
  async replace(principal: Principal, body: unknown): Promise<{ view: PolicyView; created: boolean }> {
    // The refusal of the DTO routes (the body here is read by normalizePolicyInput, not a DTO).
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest(BODY_NOT_OBJECT_MESSAGE, 'body');
    // Fields first (a non-string `org_id` is a 400 naming it), then whose policy it is.
    const overrides = validPolicy(body);
    const orgParam = (body as Record<string, unknown>)['org_id'];
    if (orgParam !== undefined && orgParam !== principal.orgId) throw notFound('Organization', 'org_id');
    const existed = (await this.repositories.policies.get(principal.orgId)) !== null;
    const stored = await this.repositories.policies.replace(principal.orgId, overrides as StoredOverrides);
    await this.invalidation.publish('policy', principal.orgId);
    return { view: toPolicyView(principal.orgId, tierOf(principal), stored), created: !existed };
  }

  /** Deletes the policy: the organization reverts to its tier defaults. Another organization's id is 404. */
  async remove(principal: Principal, orgId: string): Promise<DeletedPolicyView> {
    if (orgId !== principal.orgId) throw notFound('Organization', 'org_id');
    const deleted = await this.repositories.policies.delete(principal.orgId);
    await this.invalidation.publish('policy', principal.orgId);
    return { ...toPolicyView(principal.orgId, tierOf(principal), null), deleted };
  }

  /**
   * Sets the tier-governed limits (RPM, cost cap, daily and monthly budgets, HITL threshold, body
   * size) to the preset tier's values; the organization's other overrides (allowlists, PII) stay.
   */
  async applyPreset(principal: Principal, preset: string): Promise<PolicyView> {
    const name = preset.trim().toLowerCase();
    const tier = (PRESET_NAMES as readonly string[]).includes(name) ? resolveTier(name) : undefined;
    if (!tier) throw invalidRequest(`Unknown preset '${preset}'; use one of ${PRESET_NAMES.join(', ')}`, 'preset');
    const current = policyOverrides(await this.repositories.policies.get(principal.orgId));
    const stored = await this.repositories.policies.replace(principal.orgId, { ...current, ...TIER_DEFAULTS[tier] }, tier);
    await this.invalidation.publish('policy', principal.orgId);
    return toPolicyView(principal.orgId, tierOf(principal), stored);
  }
}
