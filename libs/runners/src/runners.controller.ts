import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, GatewayAuthGuard, hasScope, Principal } from '@svc/auth';
import { RequireRunnerPermission, RunnerAccessGuard } from './access/runner-access.guard';
import { ApiOrgIdHeader, NoBody } from '@svc/platform';
import { CreateRunnerDto, EventsQuery, ExecDto, GatewayKeyQuery, ListRunnersQuery, SessionQuery, StartSessionDto } from './dto/requests';
import {
  CommandResponse,
  RunnerEventsResponse,
  RunnerListResponse,
  RunnerResponse,
  SessionResponse,
  StartedSessionResponse,
  toCommandResponse,
  toEventResponse,
  toRunnerResponse,
  toSessionResponse,
} from './dto/responses';
import { actorOf, RunnerRecords } from './runner-records';
import { CreateRunnerUseCase } from './usecases/create-runner.usecase';
import { ExecCommandUseCase } from './usecases/exec-command.usecase';
import { StartSessionUseCase } from './usecases/start-session.usecase';
import { StopSessionUseCase } from './usecases/stop-session.usecase';
import { TerminateRunnerUseCase } from './usecases/terminate-runner.usecase';

/**
 * The collection root, with and without SPEC.md's trailing slash (`POST /gateway/admin/runners/`).
 * Nest strips one trailing slash from a route path, so `//` is how `/` survives.
 */
const COLLECTION_ROOT = ['', '//'];
const DEFAULT_LIST_LIMIT = 100;
const DEFAULT_EVENTS_LIMIT = 50;

/** SPEC.md "Managed runner endpoints": runners, their sessions, commands and audit events. */
@ApiTags('runners')
@ApiSecurity('gateway-key')
@ApiBearerAuth()
@ApiOrgIdHeader()
@Controller('gateway/admin/runners')
@UseGuards(GatewayAuthGuard, RunnerAccessGuard)
export class RunnersController {
  constructor(
    private readonly records: RunnerRecords,
    private readonly createRunner: CreateRunnerUseCase,
    private readonly startSession: StartSessionUseCase,
    private readonly stopSession: StopSessionUseCase,
    private readonly execCommand: ExecCommandUseCase,
    private readonly terminateRunner: TerminateRunnerUseCase,
  ) {}

  @Post(COLLECTION_ROOT)
  @RequireRunnerPermission('runner:create')
  @ApiOperation({
    summary: 'Create a runner (answers once provisioning ended: ready, or 502 provider_error); a local runner beyond the locked profile needs runner:terminate',
  })
  @ApiCreatedResponse({ type: RunnerResponse })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateRunnerDto, @Query() _query: GatewayKeyQuery): Promise<RunnerResponse> {
    const mayRunHostPrograms = hasScope(principal.scopes, 'runner:terminate');
    const runner = await this.createRunner.execute(principal.orgId, actorOf(principal), body, { mayRunHostPrograms });
    return toRunnerResponse(runner, null);
  }

  @Get(COLLECTION_ROOT)
  @RequireRunnerPermission('runner:read')
  @ApiOperation({ summary: 'List runners, newest first' })
  @ApiOkResponse({ type: RunnerListResponse })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListRunnersQuery): Promise<RunnerListResponse> {
    const page = await this.records.repos.runners.listRunners(principal.orgId, {
      state: query.state,
      limit: query.limit ?? DEFAULT_LIST_LIMIT,
      offset: query.offset ?? 0,
    });
    return { runners: page.items.map((runner) => toRunnerResponse(runner)), total: page.total, limit: page.limit, offset: page.offset };
  }

  @Get(':runner_id')
  @RequireRunnerPermission('runner:read')
  @ApiOperation({ summary: 'A runner with its live session' })
  @ApiOkResponse({ type: RunnerResponse, description: 'With `session`: the live session, or null' })
  async get(@CurrentPrincipal() principal: Principal, @Param('runner_id') runnerId: string, @Query() _query: GatewayKeyQuery): Promise<RunnerResponse> {
    const runner = await this.records.loadRunner(principal.orgId, runnerId);
    return toRunnerResponse(runner, await this.records.liveSession(principal.orgId, runner));
  }

  @Post(':runner_id/start')
  @HttpCode(200)
  @RequireRunnerPermission('runner:start_session')
  @ApiOperation({ summary: 'Start a session on a ready runner; the runner token and X-Runner-Proof are shown once' })
  @ApiOkResponse({ type: StartedSessionResponse })
  start(@CurrentPrincipal() principal: Principal, @Param('runner_id') runnerId: string, @Body() body: StartSessionDto, @Query() _query: GatewayKeyQuery): Promise<StartedSessionResponse> {
    return this.startSession.execute(principal.orgId, actorOf(principal), runnerId, body.ttl_override);
  }

  @Post(':runner_id/stop')
  @HttpCode(200)
  @RequireRunnerPermission('runner:stop_session')
  @ApiOperation({ summary: 'Stop the active session; the runner is ready again' })
  @ApiOkResponse({ type: SessionResponse })
  async stop(
    @CurrentPrincipal() principal: Principal,
    @Param('runner_id') runnerId: string,
    @Query() query: SessionQuery,
    @NoBody() _body: undefined,
  ): Promise<SessionResponse> {
    return toSessionResponse(await this.stopSession.execute(principal.orgId, actorOf(principal), runnerId, query.session_id));
  }

  @Post(':runner_id/exec')
  @HttpCode(200)
  @RequireRunnerPermission('runner:exec')
  @ApiOperation({ summary: 'Run a command (argv, no shell) in the active session' })
  @ApiOkResponse({ type: CommandResponse })
  async exec(
    @CurrentPrincipal() principal: Principal,
    @Param('runner_id') runnerId: string,
    @Query() query: SessionQuery,
    @Body() body: ExecDto,
  ): Promise<CommandResponse> {
    const command = await this.execCommand.execute(principal.orgId, actorOf(principal), runnerId, query.session_id, body.argv, body.timeout_seconds);
    return toCommandResponse(command);
  }

  @Post(':runner_id/terminate')
  @HttpCode(200)
  @RequireRunnerPermission('runner:terminate')
  @ApiOperation({ summary: 'Terminate a runner and all its sessions' })
  @ApiOkResponse({ type: RunnerResponse })
  async terminate(@CurrentPrincipal() principal: Principal, @Param('runner_id') runnerId: string, @NoBody() _body: undefined, @Query() _query: GatewayKeyQuery): Promise<RunnerResponse> {
    return toRunnerResponse(await this.terminateRunner.execute(principal.orgId, actorOf(principal), runnerId), null);
  }

  @Get(':runner_id/events')
  @RequireRunnerPermission('runner:read')
  @ApiOperation({ summary: "The runner's audit events, newest first" })
  @ApiOkResponse({ type: RunnerEventsResponse })
  async events(@CurrentPrincipal() principal: Principal, @Param('runner_id') runnerId: string, @Query() query: EventsQuery): Promise<RunnerEventsResponse> {
    const runner = await this.records.loadRunner(principal.orgId, runnerId);
    const { events, total } = await this.records.repos.runnerEvents.listByRunner(principal.orgId, runner._id, query.limit ?? DEFAULT_EVENTS_LIMIT);
    return { runner_id: runner._id, events: events.map(toEventResponse), total };
  }
}
