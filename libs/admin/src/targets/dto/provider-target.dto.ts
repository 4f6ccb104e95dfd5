import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { PROVIDER_TARGET_KINDS, ProviderTargetKind } from '@svc/domain';
import { CreateBody, IsDisplayName, IsOptionalNonNull, QueryInt } from '@svc/platform';
import { AdminQuery } from '../../common/admin-query';

export const PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

class TargetFieldsDto {
  @ApiPropertyOptional({ enum: PROVIDER_TARGET_KINDS, description: 'what the server is (alias: `kind`); default openai_compatible' })
  @IsOptionalNonNull()
  @IsIn(PROVIDER_TARGET_KINDS)
  format?: ProviderTargetKind;

  @ApiPropertyOptional({ enum: PROVIDER_TARGET_KINDS, description: 'alias of format' })
  @IsOptionalNonNull()
  @IsIn(PROVIDER_TARGET_KINDS)
  kind?: ProviderTargetKind;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'extra non-secret headers sent upstream (at most 32)' })
  @IsOptionalNonNull()
  @IsObject()
  headers?: Record<string, string>;

  @ApiPropertyOptional({ default: true })
  @IsOptionalNonNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ type: [String], description: 'models configured by hand, listed and routable with the discovered ones' })
  @IsOptionalNonNull()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @Length(1, 256, { each: true })
  models?: string[];
}

@CreateBody()
export class CreateProviderTargetDto extends TargetFieldsDto {
  @ApiProperty({ description: 'unique in the organization' })
  @IsString()
  @Length(1, 120)
  @IsDisplayName()
  name!: string;

  @ApiProperty({ description: 'openai_compatible: the SDK base URL (`https://host/v1`); ollama: the server root (`http://host:11434`)' })
  @IsString()
  @Length(1, 2048)
  base_url!: string;

  @ApiPropertyOptional({ description: 'routing id (`provider_id/model`); default derived from the name' })
  @IsOptionalNonNull()
  @Matches(PROVIDER_ID_PATTERN, { message: 'provider_id must be 1–64 lower-case letters, digits, dots, dashes or underscores' })
  provider_id?: string;

  @ApiPropertyOptional({ description: 'the target’s API key, stored encrypted, never returned' })
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 8192)
  api_key?: string;
}

export class UpdateProviderTargetDto extends TargetFieldsDto {
  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 120)
  @IsDisplayName()
  name?: string;

  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 2048)
  base_url?: string;

  @ApiPropertyOptional({ nullable: true, description: 'a new key, or null to remove the stored one' })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @Length(1, 8192)
  api_key?: string | null;
}

export class CatalogQuery extends AdminQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  provider_id?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 200 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ description: '`next_cursor` of the previous page (anything else is 400 `invalid_cursor`)' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export class HistoryQuery extends AdminQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 50 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ description: 'only the runs of this target' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  target_id?: string;
}
