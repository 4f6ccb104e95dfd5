import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsString, Max, MaxLength, Min } from 'class-validator';
import { PolicyFieldsDto } from '@svc/governance';
import { CreateBody, IsOptionalNonNull } from '@svc/platform';
import { PRESET_NAMES } from '../policies.service';
import { PolicyView } from '../policy-view';

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
