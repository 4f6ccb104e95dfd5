import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { RUNNER_STATES, RunnerState, TOOL_PROFILES, ToolProfile } from '@svc/domain';
import { CreateBody, IsDisplayName, IsOptionalNonNull, QueryInt } from '@svc/platform';
import { PROVIDER_TYPES } from '../providers/provider-registry';

export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 86_400;
export const MAX_COMMAND_TIMEOUT_SECONDS = 3_600;
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 30;

/** Every query may carry the gateway key as `api_key` (SPEC.md: the fallback for EventSource clients). */
export class GatewayKeyQuery {
  @ApiPropertyOptional({ description: 'gateway key, for clients that cannot send headers (EventSource)' })
  @IsOptional()
  @IsString()
  api_key?: string;
}

@CreateBody()
export class CreateRunnerDto {
  @ApiProperty({ enum: PROVIDER_TYPES, description: '`fake` and `local` are built in; the vendor ids answer 400 provider_not_configured' })
  @IsIn(PROVIDER_TYPES)
  provider_type!: string;

  @ApiProperty({ enum: TOOL_PROFILES })
  @IsIn(TOOL_PROFILES)
  tool_profile!: ToolProfile;

  @ApiProperty({ minimum: MIN_TTL_SECONDS, maximum: MAX_TTL_SECONDS, description: 'TTL of each session of the runner' })
  @IsInt()
  @Min(MIN_TTL_SECONDS)
  @Max(MAX_TTL_SECONDS)
  ttl_seconds!: number;

  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(64)
  @IsDisplayName()
  runtime_version?: string;

  @ApiPropertyOptional({ nullable: true, description: 'custom image; null or absent for the default' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  @IsDisplayName()
  image_ref?: string | null;

  @ApiPropertyOptional({ description: 'display name (agent.failed carries it as runner_name); default the runner id' })
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 120)
  @IsDisplayName()
  name?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 100_000, default: 5, description: 'gateway spend allowed per session, USD' })
  @IsOptionalNonNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100_000)
  session_budget_usd?: number;
}

export class ListRunnersQuery extends GatewayKeyQuery {
  @ApiPropertyOptional({ enum: RUNNER_STATES })
  @IsOptional()
  @IsIn(RUNNER_STATES)
  state?: RunnerState;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  offset?: number;
}

export class EventsQuery extends GatewayKeyQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 50 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

@CreateBody()
export class StartSessionDto {
  @ApiPropertyOptional({ minimum: MIN_TTL_SECONDS, maximum: MAX_TTL_SECONDS, description: "this session's TTL instead of the runner's ttl_seconds" })
  @IsOptionalNonNull()
  @IsInt()
  @Min(MIN_TTL_SECONDS)
  @Max(MAX_TTL_SECONDS)
  ttl_override?: number;
}

export class SessionQuery extends GatewayKeyQuery {
  @ApiProperty()
  @IsString()
  @Length(1, 128)
  session_id!: string;
}

export class StreamQuery extends GatewayKeyQuery {
  @ApiPropertyOptional({ description: 'default: the active session; without one, every event of the runner' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  session_id?: string;
}

@CreateBody()
export class ExecDto {
  @ApiProperty({ type: [String], description: 'the command and its arguments, run without a shell' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(256)
  @IsString({ each: true })
  @MaxLength(8192, { each: true })
  @Matches(/^[^\0]*$/, { each: true, message: 'argv entries must not contain NUL bytes' })
  argv!: string[];

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_COMMAND_TIMEOUT_SECONDS, default: DEFAULT_COMMAND_TIMEOUT_SECONDS })
  @IsOptionalNonNull()
  @IsInt()
  @Min(1)
  @Max(MAX_COMMAND_TIMEOUT_SECONDS)
  timeout_seconds?: number;
}

@CreateBody()
export class RegisterByovmDto {
  @ApiProperty({ description: 'the machine’s stable id; one runner per machine and organization' })
  @IsString()
  @Matches(/^[A-Za-z0-9._:-]{1,200}$/, { message: 'machine_id must be 1–200 letters, digits, dots, colons, dashes or underscores' })
  machine_id!: string;

  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 120)
  @IsDisplayName()
  name?: string;

  @ApiPropertyOptional({ enum: TOOL_PROFILES, default: 'locked' })
  @IsOptionalNonNull()
  @IsIn(TOOL_PROFILES)
  tool_profile?: ToolProfile;

  @ApiPropertyOptional({ minimum: MIN_TTL_SECONDS, maximum: MAX_TTL_SECONDS, default: 3600 })
  @IsOptionalNonNull()
  @IsInt()
  @Min(MIN_TTL_SECONDS)
  @Max(MAX_TTL_SECONDS)
  ttl_seconds?: number;

  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(64)
  @IsDisplayName()
  runtime_version?: string;
}
