import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { Repositories, RUNNER_STATES, RunnerEntity, RunnerState } from '@svc/domain';
import { APP_CONFIG, AppConfig, OrgApiError } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { NoQueryDto } from '../common/no-query';
import { OrgRoute } from '../common/org-access';
import { orgErrors } from '../common/org-errors';
import { collection, PageQueryDto, pageOf } from '../common/pagination';
import { RunnerDto, RunnerListDto } from './dto/runner.dto';

export class RunnerListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: RUNNER_STATES })
  @IsOptional()
  @IsIn(RUNNER_STATES)
  state?: RunnerState;
}

export function toRunnerView(runner: RunnerEntity): RunnerDto {
  return {
    runner_id: runner._id,
    org_id: runner.org_id,
    name: runner.name,
    state: runner.state,
    provider_type: runner.provider_type,
    tool_profile: runner.tool_profile,
    ttl_seconds: runner.ttl_seconds,
    version: runner.version,
    active_session_id: runner.active_session_id,
    created_at: runner.created_at.toISOString(),
    updated_at: runner.updated_at.toISOString(),
  };
}

const DESCRIPTION = 'Read-only view of the managed runners (private beta); they are operated through /gateway/admin/runners. 403 `FEATURE_DISABLED` when RUNNERS_ENABLED=false.';

@ApiTags('runners')
@Controller('api/v1/admin/runners')
@UseGuards(OrgAuthGuard)
export class RunnersController {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @OrgRoute({ summary: "The organization's managed runners", level: 'read', scopes: ['runner:read'], description: DESCRIPTION })
  @ApiOkResponse({ type: RunnerListDto, description: '`{items, total, offset, limit}` of runners, newest first' })
  async list(@Caller() caller: OrgPrincipal, @Query() query: RunnerListQueryDto): Promise<RunnerListDto> {
    this.assertEnabled();
    const page = pageOf(query);
    return collection(await this.repositories.runners.listRunners(caller.orgId, { ...page, state: query.state }), page, toRunnerView);
  }

  @Get(':runner_id')
  @OrgRoute({ summary: 'One managed runner', level: 'read', scopes: ['runner:read'], description: DESCRIPTION })
  @ApiOkResponse({ type: RunnerDto })
  async get(@Caller() caller: OrgPrincipal, @Param('runner_id') id: string, @Query() _query: NoQueryDto): Promise<RunnerDto> {
    this.assertEnabled();
    const runner = await this.repositories.runners.findById(caller.orgId, id);
    if (!runner) throw orgErrors.notFound('Runner', id);
    return toRunnerView(runner);
  }

  private assertEnabled(): void {
    if (!this.config.RUNNERS_ENABLED) throw new OrgApiError(403, 'FEATURE_DISABLED', 'Managed runners are disabled on this deployment (RUNNERS_ENABLED=false)');
  }
}
