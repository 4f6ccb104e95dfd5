import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { GRANULARITIES, PERIODS } from '../cost-report';

export class ProviderCostDto {
  @ApiProperty({ description: 'USD' }) cost!: number;
  @ApiProperty({ type: 'integer', description: 'Proxied (not blocked) requests' }) requests!: number;
  @ApiProperty({ description: 'USD per provider call' }) avg_cost_per_request!: number;
}

export class AgentCostDto {
  @ApiProperty({ description: 'USD' }) cost!: number;
  @ApiProperty({ type: 'integer', description: 'Proxied (not blocked) requests of the agent' }) executions!: number;
  @ApiProperty({ description: 'Mean latency of the agent\'s provider calls' }) avg_latency_ms!: number;
}

export class CostPointDto {
  @ApiProperty({ example: '2025-01-31', description: 'UTC hour (`2025-01-31T13:00:00Z`), day, or the Monday of an ISO week' }) date!: string;
  @ApiProperty({ description: 'USD' }) cost!: number;
  @ApiProperty({ type: 'integer' }) requests!: number;
}

export class CostProjectionsDto {
  @ApiProperty({ description: 'Average daily cost × 30, USD' }) monthly_estimate!: number;
  @ApiProperty({ enum: ['increasing', 'stable', 'decreasing'] }) trend!: string;
  @ApiProperty({ description: 'Monthly estimate as a percentage of the effective monthly budget' }) budget_utilization!: number;
}

/** SPEC.md "GET /api/v1/admin/metrics/cost-optimization" (CostReport). */
@ApiExtraModels(ProviderCostDto, AgentCostDto)
export class CostReportDto {
  @ApiProperty({ enum: Object.keys(PERIODS) }) period!: string;
  @ApiProperty({ enum: GRANULARITIES }) granularity!: string;
  @ApiProperty({ description: 'Start of the period (ISO 8601)' }) from!: string;
  @ApiProperty({ description: 'End of the period: now (ISO 8601)' }) to!: string;
  @ApiProperty({ description: 'USD' }) total_cost!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ProviderCostDto) },
    description: 'Provider name (`unknown` without one) to its figures, costliest first',
    example: { openai: { cost: 0.6, requests: 4, avg_cost_per_request: 0.15 } },
  })
  by_provider!: Record<string, ProviderCostDto>;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(AgentCostDto) },
    description: 'Agent name (`unattributed` without one) to its figures, costliest first',
    example: { 'support-bot': { cost: 0.4, executions: 3, avg_latency_ms: 233.33 } },
  })
  by_agent!: Record<string, AgentCostDto>;
  @ApiProperty({ type: [CostPointDto], description: 'Every hour, day or week of the period, zeros included' }) time_series!: CostPointDto[];
  @ApiProperty({ type: CostProjectionsDto }) projections!: CostProjectionsDto;
}
