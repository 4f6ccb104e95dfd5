import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { AdminQuery } from '../../common/admin-query';

export class BillingQuery extends AdminQuery {
  @ApiPropertyOptional({ example: '2025-01', description: 'UTC month `YYYY-MM`; default the current month' })
  @IsOptional()
  @Matches(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'month must be YYYY-MM' })
  month?: string;
}

export const EXPORT_FORMATS = ['json', 'csv'] as const;

export class BillingExportQuery extends BillingQuery {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'json' })
  @IsOptional()
  @IsIn(EXPORT_FORMATS)
  format?: (typeof EXPORT_FORMATS)[number];
}

export interface BillingAmounts {
  /** USD, summed in micro-dollars from the usage records' `cost`. */
  cost: number;
  requests: number;
  blocked: number;
  input_tokens: number;
  output_tokens: number;
}

/** One line of the monthly export: the usage of one provider, model, key and agent. */
export interface BillingLine extends BillingAmounts {
  month: string;
  provider: string;
  model: string;
  key_id: string | null;
  key_name: string | null;
  agent: string | null;
}

export const BILLING_COLUMNS: readonly (keyof BillingLine)[] = [
  'month',
  'provider',
  'model',
  'key_id',
  'key_name',
  'agent',
  'requests',
  'blocked',
  'input_tokens',
  'output_tokens',
  'cost',
];

export interface BillingSummary extends BillingAmounts {
  month: string;
  from: string;
  to: string;
  currency: 'USD';
  total_cost: number;
  by_provider: (BillingAmounts & { provider: string })[];
  by_model: (BillingAmounts & { provider: string; model: string })[];
  by_key: (BillingAmounts & { key_id: string | null; key_name: string | null })[];
  by_agent: (BillingAmounts & { agent: string | null })[];
}
