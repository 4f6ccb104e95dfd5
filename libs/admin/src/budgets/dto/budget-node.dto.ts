import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsNumber, IsOptional, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { BUDGET_LEVELS, BudgetLevel, RESET_PERIODS, ResetPeriod } from '@svc/domain';
import { CreateBody, IsOptionalNonNull } from '@svc/platform';

export const MAX_BUDGET_LIMIT = 1_000_000_000;

class NodeFieldsDto {
  @ApiPropertyOptional({ type: [Number], description: 'alert thresholds in percent (0 < t ≤ 100), at most 10' })
  @IsOptionalNonNull()
  @IsArray()
  @ArrayMaxSize(10)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  @Min(0.01, { each: true })
  @Max(100, { each: true })
  alert_thresholds?: number[];
}

@CreateBody()
export class CreateBudgetNodeDto extends NodeFieldsDto {
  @ApiProperty()
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiProperty({ enum: BUDGET_LEVELS })
  @IsIn(BUDGET_LEVELS)
  level!: BudgetLevel;

  @ApiProperty({ description: 'USD per period, greater than 0' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.000001)
  @Max(MAX_BUDGET_LIMIT)
  budget_limit!: number;

  @ApiProperty({ enum: RESET_PERIODS })
  @IsIn(RESET_PERIODS)
  reset_period!: ResetPeriod;

  @ApiPropertyOptional({ description: 'required for a team node; for a key node, the key’s team' })
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 128)
  team_id?: string;

  @ApiPropertyOptional({ description: 'required for a key node: a key of the organization' })
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 128)
  key_id?: string;

  @ApiPropertyOptional({ description: 'default: the team node (for a key), else the org node' })
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 128)
  parent_id?: string;
}

export class UpdateBudgetNodeDto extends NodeFieldsDto {
  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 120)
  name?: string;

  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.000001)
  @Max(MAX_BUDGET_LIMIT)
  budget_limit?: number;

  @ApiPropertyOptional({ enum: RESET_PERIODS })
  @IsOptionalNonNull()
  @IsIn(RESET_PERIODS)
  reset_period?: ResetPeriod;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @Length(1, 128)
  parent_id?: string | null;
}

export interface BudgetNodeView {
  id: string;
  name: string;
  level: BudgetLevel;
  budget_limit: number;
  reset_period: ResetPeriod;
  parent_id: string | null;
  team_id: string | null;
  key_id: string | null;
  alert_thresholds: number[];
  /** USD spent in the current period by the requests this node is charged for (usage records). */
  current_spend: number;
  remaining: number;
  utilization_pct: number;
  period_start: string;
  period_end: string;
  created_at: string;
  updated_at: string;
}
