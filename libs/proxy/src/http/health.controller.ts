import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { DocumentStore } from '@svc/domain';
import { GOVERNANCE, GovernanceService } from '@svc/governance';
import { REDIS, Redis, RedisStatus, SERVICE_VERSION } from '@svc/platform';
import { DOCUMENT_STORE } from '@svc/runtime';
import { BreakerRegistry } from '../breaker/breaker-registry';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { providerRegistry } from '../providers';
import { RedisHealthProbe } from './redis-health';
import { DETAILED_HEALTH_RESPONSE, HEALTH_RESPONSE, PROVIDERS_HEALTH_RESPONSE, ROOT_RESPONSE } from './service.openapi';

const STARTED = Date.now();

/** SPEC.md "Health and service endpoints": no authentication. */
@ApiTags('health')
@Controller()
export class GatewayHealthController {
  /** Redis asked itself (a PING bounded to 250 ms, reused for 1 s): a partition shows before any request meets it. */
  private readonly redisProbe: RedisHealthProbe;

  constructor(
    @Inject(REDIS) redis: Redis | null,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Inject(GOVERNANCE) private readonly governance: GovernanceService,
    private readonly breakers: BreakerRegistry,
    private readonly metrics: GatewayMetrics,
  ) {
    this.redisProbe = new RedisHealthProbe(redis);
  }

  @Get('v1/health')
  @ApiOperation({ summary: 'Health: always 200; `degraded` when a backing service is unreachable' })
  @ApiOkResponse({ schema: { ...HEALTH_RESPONSE, example: { status: 'ok', service: 'svc-gateway', version: SERVICE_VERSION, timestamp: '2026-01-01T00:00:00.000Z', redis: 'not_configured', mongodb: 'not_configured', degraded: false } } })
  async health() {
    return this.basic(await this.redisProbe.status());
  }

  /** `/v1/health`'s body for a Redis status; `degraded` also counts what the governance counters found. */
  private basic(redis: RedisStatus) {
    const mongodb = this.store.kind === 'mongodb' ? this.store.status() : 'not_configured';
    return {
      status: 'ok',
      service: 'svc-gateway',
      version: SERVICE_VERSION,
      timestamp: new Date().toISOString(),
      redis,
      mongodb,
      degraded: redis === 'disconnected' || mongodb === 'disconnected' || this.governance.health().degraded,
    };
  }

  @Get('v1/providers/health')
  @ApiOperation({ summary: 'Circuit breakers: healthy when all closed, degraded when some open or half-open, unhealthy when all open' })
  @ApiOkResponse({ schema: PROVIDERS_HEALTH_RESPONSE })
  providers() {
    return { status: this.breakers.overall(), timestamp: new Date().toISOString(), providers: this.breakers.records() };
  }

  @Get('v1/health/detailed')
  @ApiOperation({ summary: 'Detailed health: 200 when healthy or degraded, 503 when every provider is down' })
  @ApiOkResponse({ description: 'Healthy or degraded', schema: DETAILED_HEALTH_RESPONSE })
  @ApiServiceUnavailableResponse({ description: 'Unhealthy: every provider is down', schema: DETAILED_HEALTH_RESPONSE })
  async detailed(@Res() reply: FastifyReply) {
    const [redis, metrics, cost, busiest] = await Promise.all([this.redisProbe.status(), this.metrics.snapshot(), this.governance.todayCost(), this.governance.busiestOrgs(5)]);
    // Built after the counters' reads: what they found (within their bounded wait) counts in this answer too.
    const basic = this.basic(redis);
    const breakerStatus = this.breakers.overall();
    const overall = breakerStatus === 'unhealthy' ? 'unhealthy' : breakerStatus === 'degraded' || basic.degraded ? 'degraded' : 'healthy';
    const utilization = cost.daily_budget_usd > 0 ? Math.round((cost.today_usd / cost.daily_budget_usd) * 10_000) / 100 : 0;
    const alerts: { level: string; message: string }[] = [];
    for (const record of this.breakers.records()) {
      if (record.state !== 'closed') alerts.push({ level: 'warning', message: `circuit breaker for ${record.provider} is ${record.state}` });
    }
    if (basic.degraded) alerts.push({ level: 'warning', message: 'a backing service is unreachable; counters run in memory' });
    if (utilization >= 90) alerts.push({ level: 'warning', message: `daily spend is at ${utilization}% of the summed daily budgets` });
    const body = {
      overall_status: overall,
      timestamp: new Date().toISOString(),
      uptime_seconds: (Date.now() - STARTED) / 1000,
      components: {
        gateway: { status: 'ok', version: SERVICE_VERSION },
        redis: { status: basic.redis },
        mongodb: { status: basic.mongodb },
      },
      providers: Object.fromEntries(this.breakers.records().map((record) => [record.provider, { status: record.state === 'closed' ? 'healthy' : record.state === 'open' ? 'unhealthy' : 'degraded', circuit_breaker: record }])),
      metrics,
      cost: { today_usd: cost.today_usd, daily_budget_usd: cost.daily_budget_usd, utilization_pct: utilization },
      alerts,
      rate_limits: busiest,
    };
    await reply.status(overall === 'unhealthy' ? 503 : 200).send(body);
  }

  @Get()
  @ApiOperation({ summary: 'Service description and route map' })
  @ApiOkResponse({ schema: ROOT_RESPONSE })
  root() {
    return {
      service: 'svc-gateway',
      version: SERVICE_VERSION,
      status: 'ok',
      docs: '/docs',
      health: '/v1/health',
      liveness: '/health',
      metrics: '/metrics',
      endpoints: {
        chat_completions: 'POST /v1/chat/completions',
        provider_chat_completions: 'POST /v1/{provider}/chat/completions',
        messages: 'POST /v1/messages',
        provider_messages: 'POST /v1/{provider}/messages',
        embeddings: 'POST /v1/embeddings',
        models: 'GET /v1/models',
        model: 'GET /v1/models/{model}',
        approval_status: 'GET /v1/approvals/{approval_id}/status',
        providers_health: 'GET /v1/providers/health',
        detailed_health: 'GET /v1/health/detailed',
        admin: '/gateway/admin',
      },
      providers: providerRegistry.list().map((provider) => ({ id: provider.id, label: provider.label, format: provider.format })),
    };
  }

  @Get('metrics')
  @ApiOperation({
    summary: 'Prometheus exposition',
    description: 'Request counts by provider, model and status; latency histograms; governance block counts by reason; cost by provider; circuit-breaker state changes.',
  })
  @ApiOkResponse({ description: 'Prometheus text format', content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } } })
  async prometheus(@Res() reply: FastifyReply) {
    await reply.header('content-type', this.metrics.contentType).send(await this.metrics.exposition());
  }
}
