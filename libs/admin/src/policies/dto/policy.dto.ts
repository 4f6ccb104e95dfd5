import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsString, Max, MaxLength, Min } from 'class-validator';
import { PII_ACTIONS } from '@svc/governance';
import { CreateBody, IsOptionalNonNull } from '@svc/platform';
import { PRESET_NAMES } from '../policies.service';
import { PolicyView } from '../policy-view';

/** Documentation of a policy write (the body is validated by `normalizePolicyInput`, every error at once). */
export class PolicyFieldsDto {
  @ApiPropertyOptional({ minimum: 1, description: 'requests per minute; `rate_limit_rpm` is accepted as an alias' })
  rpm_limit?: number;
  @ApiPropertyOptional({ description: 'USD' })
  daily_budget?: number;
  @ApiPropertyOptional({ description: 'USD' })
  monthly_budget?: number;
  @ApiPropertyOptional({ description: 'USD, cap on one request estimate' })
  max_cost_per_request?: number;
  @ApiPropertyOptional()
  pii_scan_enabled?: boolean;
  @ApiPropertyOptional({ enum: PII_ACTIONS })
  pii_action?: string;
  @ApiPropertyOptional({ type: [String], description: 'empty = every model' })
  allowed_models?: string[];
  @ApiPropertyOptional({ description: 'USD; an estimate above it needs approval' })
  hitl_cost_threshold?: number;
  @ApiPropertyOptional({ maximum: 200 * 1024 * 1024, description: 'request body cap in bytes, at most 200 MB' })
  max_body_bytes?: number;
  @ApiPropertyOptional({ nullable: true })
  max_reasoning_tokens?: number | null;
  @ApiPropertyOptional({ type: [String], description: 'empty = every skill' })
  allowed_skills?: string[];
  @ApiPropertyOptional({ type: [Number], description: 'percent, default 50, 75, 90' })
  budget_warning_thresholds?: number[];
}

export class ApplyPresetDto {
  @ApiProperty({ enum: PRESET_NAMES })
  @IsString()
  @MaxLength(32)
  preset!: string;
}

export const MIN_REPLAY_HOURS = 1;
export const MAX_REPLAY_HOURS = 720;
export const DEFAULT_REPLAY_HOURS = 24;

@CreateBody()
export class SimulatePolicyDto {
  @ApiProperty({ type: PolicyFieldsDto, description: 'policy fields to try, over the current policy' })
  @IsObject()
  draft_policy!: Record<string, unknown>;

  @ApiPropertyOptional({ minimum: MIN_REPLAY_HOURS, maximum: MAX_REPLAY_HOURS, default: DEFAULT_REPLAY_HOURS })
  @IsOptionalNonNull()
  @IsInt()
  @Min(MIN_REPLAY_HOURS)
  @Max(MAX_REPLAY_HOURS)
  replay_hours?: number;
}

/** `DELETE /policies/{org_id}`: the view after the deletion, and whether there was a policy to delete. */
export class DeletedPolicyView extends PolicyView {
  @ApiProperty({ description: 'false when the organization had no custom policy' })
  deleted!: boolean;
}
