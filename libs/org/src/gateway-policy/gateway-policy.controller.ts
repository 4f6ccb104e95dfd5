import { Body, Controller, HttpCode, Patch, Query, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PolicyFieldsDto, PolicyView } from '@svc/governance';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { NoQueryDto } from '../common/no-query';
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
  // The gateway admin's policy body (`POST /gateway/admin/policies`), every field optional here.
  @ApiBody({ type: PolicyFieldsDto, examples: { rpm: { value: { rpm_limit: 120 } } } })
  @ApiOkResponse({ type: PolicyView, description: 'The policy as `GET /gateway/admin/policies` shows it' })
  patch(@Caller() caller: OrgPrincipal, @Body() body: unknown, @Query() _query: NoQueryDto): Promise<PolicyView> {
    return this.policies.patch(caller, body);
  }
}
