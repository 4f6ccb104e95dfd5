import { All, Controller, Get, Inject, OnModuleInit, Param, Query, UseGuards } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiGoneResponse, ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IS_PROVIDER_CALL, OrgId, Repositories } from '@svc/domain';
import type { FastifyInstance } from 'fastify';
import { ApiCollectionResponse, refuseBeforeBody } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { OrgRoute } from '../common/org-access';
import { orgErrors } from '../common/org-errors';
import { Collection, PageQueryDto, pageOf } from '../common/pagination';
import { IsQueryInt } from '../common/query-int';
import { AgentHealth, agentHealth, agentsHealth, AgentSample, UNATTRIBUTED_AGENT } from './agent-health';
import { AgentHealthDto } from './dto/agent-health.dto';

/** At most this many recent usage records are read for agent health. */
const MAX_SAMPLES = 50_000;
const SCOPES = ['agents:read', 'admin:read'];
const DESCRIPTION =
  'From the usage records of the last `window_hours` (default 24, max 168), keyed on the agent (the `X-SVC-Agent` header, else the API key name). ' +
  'score = 100 × (1 − error rate) minus up to 30 points for a slow p95 and up to 20 for governance blocks; healthy ≥ 90, degraded ≥ 70, else unhealthy. ' +
  'executions are the requests not blocked by governance (idempotent replays and refusals before governance included); error_rate is the share of them ' +
  'that ended with a status ≥ 400. p50/p95 latency are those of the provider calls (requests a provider answered).';

export class AgentHealthQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ default: 24, minimum: 1, maximum: 168 })
  @IsQueryInt(1, 168)
  window_hours?: number;
}

export class AgentWindowQueryDto {
  @ApiPropertyOptional({ default: 24, minimum: 1, maximum: 168 })
  @IsQueryInt(1, 168)
  window_hours?: number;
}

@ApiTags('agents')
@Controller('api/v1/agents')
@UseGuards(OrgAuthGuard)
export class AgentsController {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  @Get('health')
  @OrgRoute({ summary: 'Health of every agent', level: 'read', scopes: SCOPES, description: DESCRIPTION })
  @ApiCollectionResponse(AgentHealthDto, 'Agents, busiest first')
  async list(@Caller() caller: OrgPrincipal, @Query() query: AgentHealthQueryDto): Promise<Collection<AgentHealth>> {
    const page = pageOf(query);
    const all = agentsHealth(await this.samples(caller.orgId, query.window_hours ?? 24));
    return { items: all.slice(page.offset, page.offset + page.limit), total: all.length, ...page };
  }

  @Get(':agent_name/health')
  @OrgRoute({ summary: "One agent's health", level: 'read', scopes: SCOPES, description: `${DESCRIPTION} 404 when the agent has no requests in the window.` })
  @ApiOkResponse({ type: AgentHealthDto })
  async one(@Caller() caller: OrgPrincipal, @Param('agent_name') name: string, @Query() query: AgentWindowQueryDto): Promise<AgentHealth> {
    const samples = (await this.samples(caller.orgId, query.window_hours ?? 24)).filter((s) => (s.agent ?? UNATTRIBUTED_AGENT) === name);
    if (samples.length === 0) throw orgErrors.notFound('Agent', name);
    return agentHealth(name, samples);
  }

  private samples(orgId: OrgId, hours: number): Promise<AgentSample[]> {
    const from = new Date(Date.now() - hours * 3_600_000);
    return this.repositories.usage.aggregateUsage<AgentSample>(orgId, [
      { $match: { created_at: { $gte: from } } },
      { $sort: { created_at: -1 } },
      { $limit: MAX_SAMPLES },
      { $project: { _id: 0, agent: 1, latency_ms: 1, status_code: 1, blocked_by: 1, cost: 1, created_at: 1, provider_call: IS_PROVIDER_CALL } },
    ]);
  }
}

const REMOVED_AGENTS = '/api/v1/admin/agents';

/**
 * SPEC.md "Versioning": the former `/api/v1/admin/agents/*` routes answer 410 to every method,
 * whatever the body: the 410 is sent from an `onRequest` hook, before the body is read, so no content
 * type (415), malformed JSON (400) or size (413) comes first and a huge body is never buffered. The
 * handlers below stand for the routes (Fastify matches them; /docs lists them) and are reached only
 * where the hook is not registered.
 */
@ApiTags('agents')
@Controller(REMOVED_AGENTS.slice(1))
export class RemovedAgentsController implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (typeof fastify?.addHook === 'function') refuseBeforeBody(fastify, [REMOVED_AGENTS, `${REMOVED_AGENTS}/*`], gone);
  }

  @All()
  @ApiOperation({ summary: 'Removed: use /api/v1/agents/health', description: 'Every method and sub-path answers 410 `GONE`.' })
  @ApiGoneResponse({ description: '`{error: {code: GONE, ...}}`' })
  root(): never {
    throw gone();
  }

  @All('*')
  @ApiOperation({ summary: 'Removed: use /api/v1/agents/{agent_name}/health', description: 'Every method and sub-path answers 410 `GONE`.' })
  @ApiGoneResponse({ description: '`{error: {code: GONE, ...}}`' })
  any(): never {
    throw gone();
  }
}

function gone() {
  return orgErrors.gone('The /api/v1/admin/agents routes were removed; use GET /api/v1/agents/health and /api/v1/agents/{agent_name}/health');
}
