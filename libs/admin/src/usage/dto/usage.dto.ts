import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import type { UsageSource } from '@svc/domain';
import { QueryInt } from '@svc/platform';
import { AdminQuery } from '../../common/admin-query';

export const MAX_USAGE_DAYS = 90;

export class UsageDaysQuery extends AdminQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_USAGE_DAYS })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(MAX_USAGE_DAYS)
  days?: number;
}

export class UsageListQuery extends UsageDaysQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'records to skip (or use cursor)' })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  offset?: number;

  @ApiPropertyOptional({ description: '`next_cursor` of the previous page (anything else is 400 `invalid_cursor`)' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

/** One usage record (DECISIONS.md "Usage record"); CSV columns are these fields in this order. */
export class UsageRecordView {
  @ApiProperty({ type: String })
  request_id!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: String })
  org_id!: string;
  @ApiProperty({ type: String, nullable: true })
  key_id!: string | null;
  @ApiProperty({ type: String, nullable: true })
  team_id!: string | null;
  @ApiProperty({ type: String, nullable: true })
  agent!: string | null;
  @ApiProperty({ type: String })
  provider!: string;
  @ApiProperty({ type: String })
  model!: string;
  @ApiProperty({ type: String })
  endpoint!: string;
  @ApiProperty({ type: Boolean })
  stream!: boolean;
  @ApiProperty({ type: 'integer' })
  status_code!: number;
  @ApiProperty({ type: String, nullable: true })
  blocked_by!: string | null;
  @ApiProperty({ type: 'integer' })
  input_tokens!: number;
  @ApiProperty({ type: 'integer' })
  output_tokens!: number;
  @ApiProperty({ type: Number })
  estimated_cost!: number;
  @ApiProperty({ type: Number })
  cost!: number;
  /** Basis of the tokens and `cost`: `provider` (reported usage), `estimate` (the gateway's count), `none` (nothing answered), `replay` (an idempotent replay, cost 0). */
  @ApiProperty({ enum: ['provider', 'estimate', 'none', 'replay'] })
  usage_source!: UsageSource;
  @ApiProperty({ type: Number })
  latency_ms!: number;
  @ApiProperty({ type: Number, nullable: true })
  upstream_latency_ms!: number | null;
  @ApiProperty({ type: Number })
  governance_ms!: number;
  @ApiProperty({ type: String, nullable: true })
  runner_id!: string | null;
  @ApiProperty({ type: String, nullable: true })
  session_id!: string | null;
}

export const USAGE_COLUMNS: readonly (keyof UsageRecordView)[] = [
  'request_id',
  'created_at',
  'org_id',
  'key_id',
  'team_id',
  'agent',
  'provider',
  'model',
  'endpoint',
  'stream',
  'status_code',
  'blocked_by',
  'input_tokens',
  'output_tokens',
  'estimated_cost',
  'cost',
  'usage_source',
  'latency_ms',
  'upstream_latency_ms',
  'governance_ms',
  'runner_id',
  'session_id',
];

/** The window a report covers: the last `days` days, `from` to `to`. */
export class ReportWindow {
  @ApiProperty({ type: 'integer' })
  days!: number;
  @ApiProperty({ type: String, format: 'date-time' })
  from!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  to!: string;
}

export class UsagePage extends ReportWindow {
  @ApiProperty({ type: () => [UsageRecordView] })
  items!: UsageRecordView[];
  @ApiProperty({ type: 'integer' })
  total!: number;
  @ApiProperty({ type: 'integer' })
  limit!: number;
  /** Null when the page was asked by cursor. */
  @ApiProperty({ type: 'integer', nullable: true })
  offset!: number | null;
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  @ApiProperty({ type: String, nullable: true })
  next_cursor!: string | null;
}

/** `GET /usage/daily`. */
export class DailyUsageReport extends ReportWindow {
  @ApiProperty({ type: () => [DailyUsage] })
  items!: DailyUsage[];
  @ApiProperty({ type: Number })
  total_cost!: number;
  @ApiProperty({ type: 'integer' })
  total_requests!: number;
}

export class DailyUsage {
  @ApiProperty({ type: String, format: 'date' })
  date!: string;
  @ApiProperty({ type: 'integer' })
  requests!: number;
  @ApiProperty({ type: 'integer' })
  blocked!: number;
  @ApiProperty({ type: Number })
  cost!: number;
  @ApiProperty({ type: Number })
  estimated_cost!: number;
  @ApiProperty({ type: 'integer' })
  input_tokens!: number;
  @ApiProperty({ type: 'integer' })
  output_tokens!: number;
}

/** `GET /usage/{request_id}`: the record and what a replay of the request needs. */
export class UsageRecordDetails extends UsageRecordView {
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'What the governance chain read from the request (token estimates, body size, findings, skills); null on records written before it existed' })
  replay!: unknown;
}
