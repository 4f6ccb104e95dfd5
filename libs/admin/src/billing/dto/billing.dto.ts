import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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

/** The amounts of a billing line or group; `cost` is USD, summed in micro-dollars from the usage records' `cost`. */
export class BillingAmounts {
  @ApiProperty({ type: Number, description: 'USD' })
  cost!: number;
  @ApiProperty({ type: 'integer' })
  requests!: number;
  @ApiProperty({ type: 'integer', description: 'requests refused by governance' })
  blocked!: number;
  @ApiProperty({ type: 'integer' })
  input_tokens!: number;
  @ApiProperty({ type: 'integer' })
  output_tokens!: number;
}

/** One line of the monthly export: the usage of one provider, model, key and agent. */
export class BillingLine extends BillingAmounts {
  @ApiProperty({ type: String, example: '2025-01' })
  month!: string;
  @ApiProperty({ type: String })
  provider!: string;
  @ApiProperty({ type: String })
  model!: string;
  @ApiProperty({ type: String, nullable: true })
  key_id!: string | null;
  @ApiProperty({ type: String, nullable: true })
  key_name!: string | null;
  @ApiProperty({ type: String, nullable: true })
  agent!: string | null;
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

export class BillingByProvider extends BillingAmounts {
  @ApiProperty({ type: String })
  provider!: string;
}

export class BillingByModel extends BillingByProvider {
  @ApiProperty({ type: String })
  model!: string;
}

export class BillingByKey extends BillingAmounts {
  @ApiProperty({ type: String, nullable: true })
  key_id!: string | null;
  @ApiProperty({ type: String, nullable: true })
  key_name!: string | null;
}

export class BillingByAgent extends BillingAmounts {
  @ApiProperty({ type: String, nullable: true })
  agent!: string | null;
}

/** The month of a summary or an export: `YYYY-MM` and its UTC [from, to) range. */
class BillingMonth {
  @ApiProperty({ type: String, example: '2025-01' })
  month!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  from!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  to!: string;
  @ApiProperty({ enum: ['USD'] })
  currency!: 'USD';
  @ApiProperty({ type: Number, description: 'USD' })
  total_cost!: number;
}

/** `GET /billing/summary`: the month's totals (the amounts), then the same by provider, model, key and agent, costliest first. */
export class BillingSummary extends BillingMonth implements BillingAmounts {
  @ApiProperty({ type: Number, description: 'USD, the same as total_cost' })
  cost!: number;
  @ApiProperty({ type: 'integer' })
  requests!: number;
  @ApiProperty({ type: 'integer' })
  blocked!: number;
  @ApiProperty({ type: 'integer' })
  input_tokens!: number;
  @ApiProperty({ type: 'integer' })
  output_tokens!: number;
  @ApiProperty({ type: () => [BillingByProvider] })
  by_provider!: BillingByProvider[];
  @ApiProperty({ type: () => [BillingByModel] })
  by_model!: BillingByModel[];
  @ApiProperty({ type: () => [BillingByKey] })
  by_key!: BillingByKey[];
  @ApiProperty({ type: () => [BillingByAgent] })
  by_agent!: BillingByAgent[];
}

/** `GET /billing/export` (`format=json`): the month and one line per provider, model, key and agent. */
export class BillingExport extends BillingMonth {
  @ApiProperty({ type: () => [BillingLine] })
  lines!: BillingLine[];
}
