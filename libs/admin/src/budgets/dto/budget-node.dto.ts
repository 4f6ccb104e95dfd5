import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsNumber, IsOptional, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { BUDGET_LEVELS, BudgetLevel, RESET_PERIODS, ResetPeriod } from '@svc/domain';
import { CreateBody, IsDisplayName, IsOptionalNonNull } from '@svc/platform';

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
  @IsDisplayName()
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
  @IsDisplayName()
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

/** A budget node with its spend in the current period. */
export class BudgetNodeView {
  @ApiProperty({ type: String })
  id!: string;
  @ApiProperty({ type: String })
  name!: string;
  @ApiProperty({ enum: BUDGET_LEVELS })
  level!: BudgetLevel;
  @ApiProperty({ type: Number, description: 'USD per period' })
  budget_limit!: number;
  @ApiProperty({ enum: RESET_PERIODS })
  reset_period!: ResetPeriod;
  @ApiProperty({ type: String, nullable: true })
  parent_id!: string | null;
  @ApiProperty({ type: String, nullable: true })
  team_id!: string | null;
  @ApiProperty({ type: String, nullable: true })
  key_id!: string | null;
  @ApiProperty({ type: [Number], description: 'percent' })
  alert_thresholds!: number[];
  /** USD spent in the current period by the requests this node is charged for (usage records). */
  @ApiProperty({ type: Number, description: 'USD spent in the current period by the requests this node is charged for (usage records)' })
  current_spend!: number;
  @ApiProperty({ type: Number, description: 'USD' })
  remaining!: number;
  @ApiProperty({ type: Number, description: 'percent of budget_limit spent' })
  utilization_pct!: number;
  @ApiProperty({ type: String, format: 'date-time' })
  period_start!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  period_end!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: string;
}

/** `GET /budgets/nodes`: every node of the organization (not paginated). */
export class BudgetNodeList {
  @ApiProperty({ type: () => [BudgetNodeView] })
  items!: BudgetNodeView[];
  @ApiProperty({ type: 'integer' })
  total!: number;
}
