import { Body, Controller, HttpCode, Patch, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PolicyView } from '@svc/governance';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { OrgRoute } from '../common/org-access';
import { GatewayPolicyService } from './gateway-policy.service';

/** SPEC.md "Gateway admin endpoints", "Also referenced": the gateway policy from the organization API. */
@ApiTags('gateway-policy')
@Controller('api/v1/admin/gateway/policy/:org_id')
@UseGuards(OrgAuthGuard)
export class GatewayPolicyController {
  constructor(private readonly policies: GatewayPolicyService) {}

  @Patch()
  @HttpCode(200)
  @OrgRoute({
    summary: "Change some fields of the organization's gateway policy",
    level: 'admin',
    scopes: ['admin:write'],
    description:
      "`{org_id}` must be the caller's organization (404 otherwise). The policy of `/gateway/admin/policies`: only the fields sent change " +
      '(`rate_limit_rpm` is accepted for `rpm_limit`; `max_reasoning_tokens: null` removes the cap; unknown fields and bad values are 400 naming them). ' +
      'Every gateway replica applies it from its next request. Answers the policy as `GET /gateway/admin/policies` shows it.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      description:
        'Any of rpm_limit (alias rate_limit_rpm), daily_budget, monthly_budget, max_cost_per_request, pii_scan_enabled, pii_action, ' +
        'allowed_models, hitl_cost_threshold, max_body_bytes, max_reasoning_tokens, allowed_skills, budget_warning_thresholds; optional org_id (the same organization)',
      example: { rpm_limit: 120 },
    },
  })
  @ApiOkResponse({ type: PolicyView, description: 'The policy as `GET /gateway/admin/policies` shows it' })
  patch(@Caller() caller: OrgPrincipal, @Body() body: unknown): Promise<PolicyView> {
    return this.policies.patch(caller, body);
  }
}
