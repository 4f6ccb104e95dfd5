import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiSecurity, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, GatewayAuthGuard, Principal } from '@svc/auth';
import { AnswersWhenRunnersDisabled, RequireRunnerPermission, RunnerAccessGuard } from './access/runner-access.guard';
import { ApiOrgIdHeader, NoBody } from '@svc/platform';
import { GatewayKeyQuery, RegisterByovmDto } from './dto/requests';
import { CanaryReportResponse, RUNNER_OPS_EXTRA_MODELS, RunnerHealthResponse, RunnerPrerequisitesResponse } from './dto/ops-responses';
import { RunnerResponse, toRunnerResponse } from './dto/responses';
import { actorOf } from './runner-records';
import { RunnerHealth, RunnerPrerequisites, RunnerStatus } from './runner-status';
import { ByovmUseCase } from './usecases/byovm.usecase';
import { CanaryReport, RunCanaryUseCase } from './usecases/run-canary.usecase';

/** Health, prerequisites, canary and self-hosted (BYOVM) registration of the runner control plane. */
@ApiTags('runners')
@ApiExtraModels(...RUNNER_OPS_EXTRA_MODELS)
@Controller('gateway/admin/runners')
export class RunnerOpsController {
  constructor(
    private readonly status: RunnerStatus,
    private readonly canary: RunCanaryUseCase,
    private readonly byovm: ByovmUseCase,
  ) {}

  /** No authentication, like every health endpoint; answers with the flag off too. */
  @Get('health')
  @ApiOperation({ summary: 'Runner subsystem health: {status, provider, subsystems{feature_flag, provider_available}}' })
  @ApiOkResponse({ type: RunnerHealthResponse })
  health(): Promise<RunnerHealth> {
    return this.status.health();
  }

  @Get('prerequisites')
  @ApiSecurity('gateway-key')
  @ApiBearerAuth()
  @ApiOrgIdHeader()
  @UseGuards(GatewayAuthGuard, RunnerAccessGuard)
  @RequireRunnerPermission('runner:read')
  @AnswersWhenRunnersDisabled()
  @ApiOperation({ summary: 'What is configured and what is missing for managed runners' })
  @ApiOkResponse({ type: RunnerPrerequisitesResponse })
  prerequisites(@Query() _query: GatewayKeyQuery): Promise<RunnerPrerequisites> {
    return this.status.prerequisites();
  }

  @Post('canary')
  @ApiSecurity('gateway-key')
  @ApiBearerAuth()
  @ApiOrgIdHeader()
  @UseGuards(GatewayAuthGuard, RunnerAccessGuard)
  @RequireRunnerPermission('runner:create', 'runner:start_session', 'runner:exec', 'runner:stop_session')
  @ApiOperation({ summary: 'Lifecycle test on the fake provider: create, start, exec, stop (then cleanup); 200 passed, 503 failed' })
  @ApiOkResponse({ type: CanaryReportResponse, description: 'Every step passed' })
  @ApiServiceUnavailableResponse({ type: CanaryReportResponse, description: 'A step failed' })
  async runCanary(@CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) reply: FastifyReply, @NoBody() _body: undefined, @Query() _query: GatewayKeyQuery): Promise<CanaryReport> {
    const report = await this.canary.execute(principal.orgId, actorOf(principal));
    reply.status(report.status === 'passed' ? 200 : 503);
    return report;
  }

  @Post('byovm/register')
  @ApiSecurity('gateway-key')
  @ApiBearerAuth()
  @ApiOrgIdHeader()
  @UseGuards(GatewayAuthGuard, RunnerAccessGuard)
  @RequireRunnerPermission('runner:create')
  @ApiOperation({ summary: 'Register a self-hosted machine as a runner (409 runner_already_registered for a known machine_id)' })
  @ApiCreatedResponse({ type: RunnerResponse })
  async register(@CurrentPrincipal() principal: Principal, @Body() body: RegisterByovmDto, @Query() _query: GatewayKeyQuery): Promise<RunnerResponse> {
    return toRunnerResponse(await this.byovm.register(principal.orgId, actorOf(principal), body), null);
  }

  @Delete('byovm/:runner_id')
  @HttpCode(200)
  @ApiSecurity('gateway-key')
  @ApiBearerAuth()
  @ApiOrgIdHeader()
  @UseGuards(GatewayAuthGuard, RunnerAccessGuard)
  @RequireRunnerPermission('runner:terminate')
  @ApiOperation({ summary: 'Deregister a self-hosted runner (terminated; its machine id may register again)' })
  @ApiOkResponse({ type: RunnerResponse })
  async deregister(@CurrentPrincipal() principal: Principal, @Param('runner_id') runnerId: string, @Query() _query: GatewayKeyQuery): Promise<RunnerResponse> {
    return toRunnerResponse(await this.byovm.deregister(principal.orgId, actorOf(principal), runnerId), null);
  }
}
