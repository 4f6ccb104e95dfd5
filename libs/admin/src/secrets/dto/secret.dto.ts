import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { CreateBody, IsDisplayName, IsOptionalNonNull } from '@svc/platform';

/** `plaintext_key` is canonical; `secret` is accepted in its place (DECISIONS.md). Store and rotate both set the whole key. */
@CreateBody()
export class StoreSecretDto {
  @ApiProperty({ description: 'provider id or alias (e.g. `openai`, `google`), or one of your provider targets' })
  @IsString()
  @Length(1, 64)
  provider!: string;

  @ApiPropertyOptional({ description: 'the provider key; write-only' })
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(8192)
  plaintext_key?: string;

  @ApiPropertyOptional({ description: 'alias of plaintext_key' })
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(8192)
  secret?: string;

  @ApiPropertyOptional({ nullable: true, description: 'null (on rotate) clears it' })
  @IsOptional()
  @IsString()
  @MaxLength(120)
  @IsDisplayName()
  label?: string | null;
}

/** Metadata of a stored provider key: never the key, at most its last four characters. */
export class SecretView {
  @ApiProperty()
  id!: string;
  @ApiProperty()
  provider!: string;
  @ApiProperty({ type: String, nullable: true })
  label!: string | null;
  @ApiProperty({ description: 'The last four characters of the stored key' })
  last_four!: string;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  rotated_at!: string | null;
}

/** `GET /secrets`: every stored provider key of the organization (not paginated). */
export class SecretList {
  @ApiProperty({ type: () => [SecretView] })
  items!: SecretView[];
  @ApiProperty({ type: 'integer' })
  total!: number;
}
