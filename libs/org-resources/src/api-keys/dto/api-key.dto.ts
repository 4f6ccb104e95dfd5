import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { apiKeyExpiryProblem, MAX_API_KEY_LIFETIME_DAYS } from '@svc/domain';
import { CreateBody, IsDisplayName, IsOptionalNonNull, Satisfies } from '@svc/platform';

/** OpenAPI of `expires_at` on a key. */
export const EXPIRES_AT_DOC = {
  type: String,
  format: 'date-time',
  nullable: true,
  example: '2030-01-31T00:00:00Z',
  description: `When the key stops working (401 GW_AUTH_002 after); null = never`,
};

@CreateBody()
export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 120, description: "The key's label, unique per organization among current keys", example: 'ci-pipeline' })
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  @IsDisplayName()
  name!: string;

  @ApiProperty({
    type: [String],
    example: ['gateway:write', 'costs:read'],
    description:
      'Gateway scopes (gateway:write, gateway:read, admin:write, admin:read, billing:read), organization scopes ' +
      '(agents:read, workflows:read, workflows:execute, costs:read, webhooks:read|write, budgets:read|write, keys:read|write) ' +
      'and runner permissions. `gateway_proxy` is accepted and stored as `gateway:write`.',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  scopes!: string[];

  @ApiPropertyOptional({ type: [String], example: ['203.0.113.0/24'], description: 'Addresses or CIDR ranges allowed to use the key; empty = any' })
  @IsOptionalNonNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  ip_allowlist?: string[];

  @ApiPropertyOptional({ description: 'Team the key belongs to (hierarchical budgets)', example: 'team-data' })
  @IsOptionalNonNull()
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  @Matches(/^[\w.:-]+$/, { message: 'team_id may contain letters, digits, _ . : - only' })
  team_id?: string;

  @ApiPropertyOptional({
    ...EXPIRES_AT_DOC,
    description: `When the key stops working: an ISO 8601 timestamp with a time zone, in the future, at most ${MAX_API_KEY_LIFETIME_DAYS} days ahead. Absent or null: never expires ` +
      "(when the caller is a key that expires: absent = the caller's expires_at; null or later than it = 403)",
  })
  @IsOptional()
  @Satisfies('isApiKeyExpiry', (value) => apiKeyExpiryProblem(value))
  expires_at?: string | null;
}

export class ApiKeyDto {
  @ApiProperty({ example: 'key_0Ov3rK8dQ...' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'svc_sk_AbC1' }) key_prefix!: string;
  @ApiProperty() last_four!: string;
  @ApiProperty({ type: [String] }) scopes!: string[];
  @ApiProperty({ type: [String] }) ip_allowlist!: string[];
  @ApiProperty({ nullable: true, type: String }) team_id!: string | null;
  @ApiProperty({ enum: ['active', 'revoked'] }) status!: string;
  @ApiProperty({ nullable: true, type: String, description: 'Set once rotated: the replacement key id' }) replaced_by!: string | null;
  @ApiProperty({ nullable: true, type: String }) grace_until!: string | null;
  @ApiProperty(EXPIRES_AT_DOC) expires_at!: string | null;
  @ApiProperty() created_at!: string;
  @ApiProperty({ nullable: true, type: String }) last_used_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) revoked_at!: string | null;
}

export class CreatedApiKeyDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The key itself, shown only in this response', example: 'svc_sk_...' }) key!: string;
  @ApiProperty({ type: [String] }) scopes!: string[];
  @ApiProperty() created_at!: string;
  @ApiProperty() key_prefix!: string;
  @ApiProperty({ type: [String] }) ip_allowlist!: string[];
  @ApiProperty({ nullable: true, type: String }) team_id!: string | null;
  @ApiProperty(EXPIRES_AT_DOC) expires_at!: string | null;
}
