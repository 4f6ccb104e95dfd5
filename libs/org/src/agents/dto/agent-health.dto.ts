import { ApiProperty } from '@nestjs/swagger';
import type { AgentHealth, AgentStatus } from '../agent-health';

/** One agent's health over the window (AgentHealth). */
export class AgentHealthDto implements AgentHealth {
  @ApiProperty({ example: 'support-bot', description: 'The `X-SVC-Agent` header, else the API key name; `unattributed` without either' }) agent_name!: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 }) score!: number;
  @ApiProperty({ enum: ['healthy', 'degraded', 'unhealthy'] }) status!: AgentStatus;
  @ApiProperty({ type: 'integer', description: 'Every request of the agent in the window, blocked ones included' }) requests!: number;
  @ApiProperty({ type: 'integer', description: 'Requests not blocked by governance' }) executions!: number;
  @ApiProperty({ type: 'integer', description: 'Executions that ended with a status of 400 or more' }) errors!: number;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'errors ÷ executions' }) error_rate!: number;
  @ApiProperty({ type: 'integer', description: 'Requests blocked by governance' }) blocked!: number;
  @ApiProperty() p50_latency_ms!: number;
  @ApiProperty() p95_latency_ms!: number;
  @ApiProperty({ description: 'USD' }) total_cost!: number;
  @ApiProperty({ description: 'Latest request of the agent (ISO 8601)' }) last_seen_at!: string;
}
