import { Inject, Injectable } from '@nestjs/common';
import { PolicyEntity, PolicyOverrides as StoredOverrides, Repositories } from '@svc/domain';
import { describePolicyErrors, normalizePolicyInput, PolicyView, tierOf, toPolicyView } from '@svc/governance';
import { BODY_NOT_OBJECT_MESSAGE, InvalidationBus } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import type { OrgPrincipal } from '../auth/org-principal';
import { orgErrors } from '../common/org-errors';

/**
 * The organization's gateway governance policy, the one `GET/POST /gateway/admin/policies` manage,
 * changed from the organization API. Every write publishes `policy` (id = organization id) so every
 * gateway replica applies it on its next request.
 */
@Injectable()
export class GatewayPolicyService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
  ) {}

  /**
   * Partial update: only the fields sent change, validated and normalized by `normalizePolicyInput`
   * (`rate_limit_rpm` is stored as `rpm_limit`); `max_reasoning_tokens: null` removes the cap. A
   * body with no policy field changes nothing (and writes nothing).
   */
  async patch(caller: OrgPrincipal, body: unknown): Promise<PolicyView> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw orgErrors.validation(BODY_NOT_OBJECT_MESSAGE, 'body');
    const result = normalizePolicyInput(body);
    if (!result.ok) {
      const { message, param } = describePolicyErrors(result.errors);
      throw orgErrors.validation(message, param, { errors: result.errors });
    }
    // Fields first (a non-string `org_id` is a 400 naming it), then whose policy it is.
    const bodyOrg = (body as Record<string, unknown>)['org_id'];
    if (bodyOrg !== undefined && bodyOrg !== caller.orgId) throw orgErrors.notFound('Organization', String(bodyOrg));
    const { max_reasoning_tokens: reasoningCap, ...set } = result.value;
    const changes: StoredOverrides = { ...set, ...(typeof reasoningCap === 'number' ? { max_reasoning_tokens: reasoningCap } : {}) };
    let stored: PolicyEntity | null = null;
    if (Object.keys(changes).length > 0) stored = await this.repositories.policies.patch(caller.orgId, changes);
    if (reasoningCap === null) stored = await this.repositories.policies.clearFields(caller.orgId, ['max_reasoning_tokens']);
    if (stored) await this.invalidation.publish('policy', caller.orgId);
    else stored = await this.repositories.policies.get(caller.orgId);
    return toPolicyView(caller.orgId, tierOf(caller), stored);
  }
}
