import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsNumber,
  IsPositive,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { ALERT_CHANNELS, AlertChannel, BUDGET_TYPES, BudgetType } from '@svc/domain';
import { CreateBody, IsDisplayName, IsOptionalNonNull } from '@svc/platform';
import { IsQueryInt } from '../../common/query-int';

/** Alert state (triggered, notified) is kept per threshold, so a budget's thresholds must differ. */
function AlertThresholdsUnique(): PropertyDecorator {
  return ArrayUnique((alert: unknown) => (alert && typeof alert === 'object' ? (alert as { threshold?: unknown }).threshold : alert), {
    message: 'alerts must not repeat a threshold (an alert is tracked by its threshold)',
  });
}

/**
 * Each alert is an object. `@ValidateNested({ each: true })` walks an element that is itself an
 * array as a list of alerts, so `alerts: [[]]` passed validation and failed in the store (500).
 * Other non-objects (`null`, `1`, `"x"`) are refused by the nested validation itself.
 */
function AlertsAreNotArrays(): PropertyDecorator {
  return ValidateBy({
    name: 'isObject',
    validator: {
      validate: (value: unknown) => !Array.isArray(value) || !value.some((alert) => Array.isArray(alert)),
      defaultMessage: () => 'each value in $property must be an object ({threshold, channels}), not an array',
    },
  });
}

export class BudgetAlertInputDto {
  @ApiProperty({ minimum: 0, maximum: 100, example: 80, description: 'Percent of the limit' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  threshold!: number;

  @ApiProperty({ enum: ALERT_CHANNELS, isArray: true, minItems: 1, example: ['webhook'], description: 'At least one: an alert without channels would notify nobody' })
  @IsArray()
  @ArrayMinSize(1, { message: 'channels must name at least one channel (an alert without channels would notify nobody)' })
  @ArrayMaxSize(3)
  @ArrayUnique()
  @IsIn(ALERT_CHANNELS, { each: true })
  channels!: AlertChannel[];
}

@CreateBody()
export class CreateBudgetDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Daily cap' })
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  @IsDisplayName()
  name!: string;

  @ApiPropertyOptional({ enum: BUDGET_TYPES, default: 'monthly' })
  @IsOptionalNonNull()
  @IsIn(BUDGET_TYPES)
  type?: BudgetType;

  @ApiProperty({ description: 'USD, greater than 0', example: 50 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(1_000_000_000)
  limit!: number;

  @ApiPropertyOptional({ type: [BudgetAlertInputDto], description: 'Thresholds must differ' })
  @IsOptionalNonNull()
  @IsArray()
  @ArrayMaxSize(20)
  @AlertThresholdsUnique()
  @AlertsAreNotArrays()
  @ValidateNested({ each: true })
  @Type(() => BudgetAlertInputDto)
  alerts?: BudgetAlertInputDto[];

  @ApiPropertyOptional({ default: false, description: 'Daily budgets only: the gateway refuses the organization\'s requests once the limit is reached' })
  @IsOptionalNonNull()
  @IsBoolean()
  auto_stop?: boolean;
}

export class UpdateBudgetDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @IsOptionalNonNull()
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  @IsDisplayName()
  name?: string;

  @ApiPropertyOptional({ enum: BUDGET_TYPES })
  @IsOptionalNonNull()
  @IsIn(BUDGET_TYPES)
  type?: BudgetType;

  @ApiPropertyOptional({ description: 'USD, greater than 0' })
  @IsOptionalNonNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(1_000_000_000)
  limit?: number;

  @ApiPropertyOptional({ type: [BudgetAlertInputDto], description: 'Replaces the alerts (their triggered state is recomputed); thresholds must differ' })
  @IsOptionalNonNull()
  @IsArray()
  @ArrayMaxSize(20)
  @AlertThresholdsUnique()
  @AlertsAreNotArrays()
  @ValidateNested({ each: true })
  @Type(() => BudgetAlertInputDto)
  alerts?: BudgetAlertInputDto[];

  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsBoolean()
  auto_stop?: boolean;
}

export class BudgetPageQueryDto {
  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsQueryInt(1)
  page?: number;

  @ApiPropertyOptional({ default: 25, minimum: 1, maximum: 200 })
  @IsQueryInt(1, 200)
  page_size?: number;
}

export class BudgetAlertDto {
  @ApiProperty() threshold!: number;
  @ApiProperty({ enum: ALERT_CHANNELS, isArray: true }) channels!: AlertChannel[];
  @ApiProperty() triggered!: boolean;
  @ApiProperty({ nullable: true, type: String }) triggered_at!: string | null;
}

export class BudgetDto {
  @ApiProperty({ example: 'budget_...' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: BUDGET_TYPES }) type!: BudgetType;
  @ApiProperty() limit!: number;
  @ApiProperty({ description: "The organization's gateway spend in the current UTC period" }) current!: number;
  @ApiProperty({ description: 'current / limit, percent' }) utilization!: number;
  @ApiProperty() period_start!: string;
  @ApiProperty() period_end!: string;
  @ApiProperty({ type: [BudgetAlertDto] }) alerts!: BudgetAlertDto[];
  @ApiProperty() auto_stop!: boolean;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

export class BudgetListDto {
  @ApiProperty({ type: [BudgetDto] }) budgets!: BudgetDto[];
  @ApiProperty({ description: 'Number of budgets of the organization' }) total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() page_size!: number;
  @ApiProperty({ description: 'Same as total' }) total_count!: number;
  @ApiProperty() has_more!: boolean;
}
