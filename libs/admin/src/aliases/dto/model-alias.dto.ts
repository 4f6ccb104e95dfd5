import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { IsFreeText, IsOptionalNonNull } from '@svc/platform';
import type { AdminPage } from '../../common/admin-query';

export const ALIAS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const ALIAS_MESSAGE = 'alias must be 1–128 letters, digits, dots, colons, dashes or underscores (no slash: it separates provider/model)';

export class CreateModelAliasDto {
  @ApiProperty({ description: 'the name clients send as `model`' })
  @IsString()
  @Matches(ALIAS_PATTERN, { message: ALIAS_MESSAGE })
  alias!: string;

  @ApiProperty({ description: 'the model it stands for (may be `provider/model`)' })
  @IsString()
  @Length(1, 256)
  model!: string;

  @ApiPropertyOptional({ nullable: true, description: 'route to this provider (a registry id or one of your provider targets)' })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @Length(1, 64)
  provider?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(500)
  @IsFreeText()
  description?: string | null;
}

export class UpdateModelAliasDto {
  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsString()
  @Matches(ALIAS_PATTERN, { message: ALIAS_MESSAGE })
  alias?: string;

  @ApiPropertyOptional()
  @IsOptionalNonNull()
  @IsString()
  @Length(1, 256)
  model?: string;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @Length(1, 64)
  provider?: string | null;

  @ApiPropertyOptional({ nullable: true, description: 'null clears it' })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(500)
  @IsFreeText()
  description?: string | null;
}

/** A custom alias of the organization. */
export class ModelAliasView {
  @ApiProperty({ type: String })
  id!: string;
  @ApiProperty({ type: String })
  alias!: string;
  @ApiProperty({ type: String })
  model!: string;
  @ApiProperty({ type: String, nullable: true })
  provider!: string | null;
  @ApiProperty({ type: String, nullable: true })
  description!: string | null;
  /** What the alias resolves to on a request: `provider/model` when a provider is set. */
  @ApiProperty({ type: String, description: 'what the alias resolves to on a request: `provider/model` when a provider is set' })
  resolves_to!: string;
  @ApiProperty({ type: Boolean, enum: [false], description: 'always false: a custom alias' })
  builtin!: false;
  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: string;
}

/** A built-in alias (read-only). */
export class BuiltinAliasView {
  @ApiProperty({ type: String })
  alias!: string;
  @ApiProperty({ type: String })
  model!: string;
  @ApiProperty({ type: String })
  resolves_to!: string;
  @ApiProperty({ type: Boolean, enum: [true], description: 'always true' })
  builtin!: true;
}

/** `GET /model-aliases`: a page of the custom aliases, and the built-in ones (read-only, all of them). */
export class ModelAliasPage implements AdminPage<ModelAliasView> {
  @ApiProperty({ type: () => [ModelAliasView] })
  items!: ModelAliasView[];
  @ApiProperty({ type: 'integer', description: 'custom aliases in all' })
  total!: number;
  @ApiProperty({ type: 'integer' })
  offset!: number;
  @ApiProperty({ type: 'integer' })
  limit!: number;
  @ApiProperty({ type: () => [BuiltinAliasView], description: 'every built-in alias, on each page' })
  builtin!: BuiltinAliasView[];
}
