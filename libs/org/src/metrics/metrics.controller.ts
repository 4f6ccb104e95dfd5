import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { OrgRoute } from '../common/org-access';
import { CostReport, Granularity, GRANULARITIES, Period, PERIODS } from './cost-report';
import { CostReportDto } from './dto/cost-report.dto';
import { MetricsService } from './metrics.service';

export class CostQueryDto {
  @ApiPropertyOptional({ enum: Object.keys(PERIODS), default: '7d' })
  @IsOptional()
  @IsIn(Object.keys(PERIODS))
  period?: Period;

  @ApiPropertyOptional({ enum: GRANULARITIES, default: 'daily' })
  @IsOptional()
  @IsIn(GRANULARITIES)
  granularity?: Granularity;
}

@ApiTags('costs')
@Controller('api/v1/admin/metrics')
@UseGuards(OrgAuthGuard)
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('cost-optimization')
  @OrgRoute({
    summary: 'Cost breakdown, time series and projections',
    level: 'read',
    scopes: ['costs:read', 'billing:read', 'admin:read'],
    description:
      'From usage records of the last `period` (ending now). Costs are what proxied requests cost; `requests` and `executions` count proxied ' +
      '(not blocked) requests, idempotent replays and refusals before governance included; `avg_cost_per_request` = cost ÷ the provider calls ' +
      '(requests a provider answered: `upstream_latency_ms` set) and `avg_latency_ms` = the mean `latency_ms` of the provider calls of the agent (replays ' +
      'and refusals, answered at once at cost 0, left out); records without a provider are grouped under `unknown`, without an agent are grouped ' +
      'under `unattributed`. `time_series` covers every UTC hour, day or ISO week ' +
      '(dated by its Monday) of the period, zeros included. `monthly_estimate` = average daily cost × 30; `trend` compares the two halves of the ' +
      'period (±10 %); `budget_utilization` = monthly estimate as a percentage of the effective monthly budget.',
  })
  @ApiOkResponse({ type: CostReportDto })
  costOptimization(@Caller() caller: OrgPrincipal, @Query() query: CostQueryDto): Promise<CostReport> {
    return this.metrics.costOptimization(caller.organization, caller.orgId, query.period ?? '7d', query.granularity ?? 'daily');
  }
}
