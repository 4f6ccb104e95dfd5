import { ApiProperty } from '@nestjs/swagger';
import { RUNNER_STATES, RunnerState, TOOL_PROFILES, ToolProfile } from '@svc/domain';

export class RunnerDto {
  @ApiProperty({ example: 'run_...' }) runner_id!: string;
  @ApiProperty() org_id!: string;
  @ApiProperty({ nullable: true, type: String }) name!: string | null;
  @ApiProperty({ enum: RUNNER_STATES }) state!: RunnerState;
  @ApiProperty() provider_type!: string;
  @ApiProperty({ enum: TOOL_PROFILES }) tool_profile!: ToolProfile;
  @ApiProperty() ttl_seconds!: number;
  @ApiProperty({ description: 'Bumped by every state transition' }) version!: number;
  @ApiProperty({ nullable: true, type: String }) active_session_id!: string | null;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

export class RunnerListDto {
  @ApiProperty({ type: [RunnerDto] }) items!: RunnerDto[];
  @ApiProperty() total!: number;
  @ApiProperty() offset!: number;
  @ApiProperty() limit!: number;
}
