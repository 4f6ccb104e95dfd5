import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import type { UsageSource } from '@svc/domain';
import { AdminQuery } from '../../common/admin-query';

export const MAX_USAGE_DAYS = 90;

export class UsageDaysQuery extends AdminQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_USAGE_DAYS })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_USAGE_DAYS)
  days?: number;
}

export class UsageListQuery extends UsageDaysQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'records to skip (or use cursor)' })
  @IsOptional()
  @Type(() => Number)
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
export interface UsageRecordView {
  request_id: string;
  created_at: string;
  org_id: string;
  key_id: string | null;
  team_id: string | null;
  agent: string | null;
  provider: string;
  model: string;
  endpoint: string;
  stream: boolean;
  status_code: number;
  blocked_by: string | null;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number;
  cost: number;
  /** Basis of the tokens and `cost`: `provider` (reported usage), `estimate` (the gateway's count), `none` (nothing answered), `replay` (an idempotent replay, cost 0). */
  usage_source: UsageSource;
  latency_ms: number;
  upstream_latency_ms: number | null;
  governance_ms: number;
  runner_id: string | null;
  session_id: string | null;
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

export interface UsagePage {
  items: UsageRecordView[];
  total: number;
  limit: number;
  /** Null when the page was asked by cursor. */
  offset: number | null;
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
  days: number;
  from: string;
  to: string;
}

/** `GET /usage/daily`. */
export interface DailyUsageReport {
  days: number;
  from: string;
  to: string;
  items: DailyUsage[];
  total_cost: number;
  total_requests: number;
}

export interface DailyUsage {
  date: string;
  requests: number;
  blocked: number;
  cost: number;
  estimated_cost: number;
  input_tokens: number;
  output_tokens: number;
}
