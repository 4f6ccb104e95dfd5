import { Controller, Get, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal, GatewayAuthGuard, Principal } from '@svc/auth';
import { ApiOrgIdHeader } from '@svc/platform';
import { RequireRunnerPermission, RunnerAccessGuard } from '../access/runner-access.guard';
import { StreamQuery } from '../dto/requests';
import { RunnerRecords } from '../runner-records';
import { RUNNER_STREAM_CONTENT } from './runner-stream.openapi';
import { RunnerStreamService } from './runner-stream.service';

@ApiTags('runners')
@ApiSecurity('gateway-key')
@ApiBearerAuth()
@ApiOrgIdHeader()
@Controller('gateway/admin/runners')
@UseGuards(GatewayAuthGuard, RunnerAccessGuard)
export class RunnerStreamController {
  constructor(
    private readonly records: RunnerRecords,
    private readonly streams: RunnerStreamService,
  ) {}

  @Get(':runner_id/stream')
  @RequireRunnerPermission('runner:read')
  @ApiOperation({
    summary: 'SSE: output, state_change, heartbeat, error, done (api_key in the query for EventSource)',
    description: 'Follows the session given, else the live session, else the whole runner. An unknown runner or session is a JSON 404 before any streaming.',
  })
  @ApiOkResponse({ description: 'The event stream (`Content-Type: text/event-stream`)', content: RUNNER_STREAM_CONTENT })
  async stream(
    @CurrentPrincipal() principal: Principal,
    @Param('runner_id') runnerId: string,
    @Query() query: StreamQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const runner = await this.records.loadRunner(principal.orgId, runnerId);
    const session = query.session_id
      ? await this.records.loadSession(principal.orgId, runner._id, query.session_id)
      : await this.records.liveSession(principal.orgId, runner);
    const { repos } = this.records;
    this.streams.follow(request, reply, runner, session, async () => ({
      runner: await repos.runners.findById(principal.orgId, runner._id),
      session: session ? await repos.runnerSessions.findById(principal.orgId, session._id) : null,
    }));
  }
}
