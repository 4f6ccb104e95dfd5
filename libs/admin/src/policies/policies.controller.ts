import { Body, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { AdminQuery } from '../common/admin-query';
import { AdminController, AdminRoute } from '../common/admin-route';
import { PolicyFieldsDto } from '@svc/governance';
import { ApplyPresetDto, DEFAULT_REPLAY_HOURS, DeletedPolicyView, SimulatePolicyDto } from './dto/policy.dto';
import { PoliciesService } from './policies.service';
import { PolicyView } from './policy-view';
import { SimulatePolicyUseCase, SimulationResponse } from './simulation/simulate-policy.usecase';

/** SPEC.md "Gateway admin endpoints": the organization's governance policy. */
@AdminController('policies', 'policies')
export class PoliciesController {
  constructor(
    private readonly policies: PoliciesService,
    private readonly simulation: SimulatePolicyUseCase,
  ) {}

  @Get()
  @AdminRoute('admin:read', 'The policy in force, the custom overrides and the tier defaults side by side')
  @ApiOkResponse({ type: PolicyView })
  get(@CurrentPrincipal() principal: Principal, @Query() _query: AdminQuery): Promise<PolicyView> {
    return this.policies.view(principal);
  }

  @Post()
  @ApiBody({ type: PolicyFieldsDto })
  @AdminRoute(
    'admin:write',
    'Create or replace the policy',
    'The body is the whole policy: absent fields revert to the tier defaults. `rate_limit_rpm` is accepted for `rpm_limit`; `max_body_bytes` is at most 200 MB. 201 when created, 200 when replaced; it applies from the next request.',
  )
  @ApiCreatedResponse({ type: PolicyView, description: 'Created' })
  @ApiOkResponse({ type: PolicyView, description: 'Replaced' })
  async replace(@CurrentPrincipal() principal: Principal, @Body() body: Record<string, unknown>, @Query() _query: AdminQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<PolicyView> {
    const { view, created } = await this.policies.replace(principal, body);
    reply.status(created ? 201 : 200);
    return view;
  }

  @Post('apply-preset')
  @HttpCode(200)
  @AdminRoute('admin:write', 'Apply a tier preset', 'Sets RPM, cost cap, budgets, HITL threshold and body size to the preset tier (`free`, `starter`, `growth`, `enterprise`; `pro`, `team`); other overrides stay.')
  @ApiOkResponse({ type: PolicyView })
  applyPreset(@CurrentPrincipal() principal: Principal, @Body() body: ApplyPresetDto, @Query() _query: AdminQuery): Promise<PolicyView> {
    return this.policies.applyPreset(principal, body.preset);
  }

  @Post('simulate')
  @HttpCode(200)
  @AdminRoute(
    'admin:read',
    'Simulate a draft policy on recent traffic',
    'Replays the governance decisions of the last `replay_hours` (1–720, default 24: usage records of requests the chain decided on, not idempotent replays or refusals before governance) through the policy-dependent stages with `draft_policy` over the current policy; returns the refusals by stage with example request ids. Read-only.',
  )
  @ApiOkResponse({ type: SimulationResponse })
  simulate(@CurrentPrincipal() principal: Principal, @Body() body: SimulatePolicyDto, @Query() _query: AdminQuery): Promise<SimulationResponse> {
    return this.simulation.execute(principal, body.draft_policy, body.replay_hours ?? DEFAULT_REPLAY_HOURS);
  }

  @Delete(':org_id')
  @AdminRoute('admin:write', 'Delete the policy: the organization reverts to its tier defaults', 'Another organization’s id answers 404.')
  @ApiOkResponse({ type: DeletedPolicyView, description: 'The policy now in force (the tier defaults)' })
  remove(@CurrentPrincipal() principal: Principal, @Param('org_id') orgId: string, @Query() _query: AdminQuery): Promise<DeletedPolicyView> {
    return this.policies.remove(principal, orgId);
  }
}
