import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNumber, IsOptional, Max, Min } from 'class-validator';
import { apiKeyExpiryProblem, MAX_API_KEY_LIFETIME_DAYS } from '@svc/domain';
import { CreateBody, IsOptionalNonNull, QueryNumber, Satisfies } from '@svc/platform';
import { AdminQuery } from '../../common/admin-query';

export const MAX_GRACE_HOURS = 168;
export const DEFAULT_GRACE_HOURS = 24;

const graceDoc = {
  minimum: 0,
  maximum: MAX_GRACE_HOURS,
  default: DEFAULT_GRACE_HOURS,
  description: 'hours the old key keeps working (with deprecation headers); 0 stops it at once',
};

@CreateBody()
export class RotateKeyDto {
  @ApiPropertyOptional(graceDoc)
  @IsOptionalNonNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_GRACE_HOURS)
  grace_period_hours?: number;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2030-01-31T00:00:00Z',
    description:
      `When the replacement key stops working: an ISO 8601 timestamp with a time zone, in the future, at most ${MAX_API_KEY_LIFETIME_DAYS} days ahead; ` +
      "null = never. Absent: the replacement keeps the old key's expires_at. A calling key that expires bounds it by its own " +
      '(absent: capped at it; null or later: 403 insufficient_lifetime).',
  })
  @IsOptional()
  @Satisfies('isApiKeyExpiry', (value) => apiKeyExpiryProblem(value))
  expires_at?: string | null;
}

/**
 * The same, for callers that send no body (SPEC.md: the route takes none): plain decimal notation
 * only (`1.5`), never `Number()`'s readings (`0x10` as 16, the empty value as 0). The body takes a JSON number.
 */
export class RotateKeyQuery extends AdminQuery {
  @ApiPropertyOptional(graceDoc)
  @IsOptional()
  @QueryNumber()
  @Min(0)
  @Max(MAX_GRACE_HOURS)
  grace_period_hours?: number;
}

/** The replacement key: `key` is its plaintext, shown this once. */
export class RotatedKeyResponse {
  @ApiProperty()
  id!: string;
  @ApiProperty()
  name!: string;
  @ApiProperty({ description: 'The plaintext of the replacement key, shown this once' })
  key!: string;
  @ApiProperty()
  key_prefix!: string;
  @ApiProperty()
  last_four!: string;
  @ApiProperty({ type: [String] })
  scopes!: string[];
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  /** When the replacement stops working (ISO), null = never. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the replacement stops working; null = never' })
  expires_at!: string | null;
  /** The rotated key, now deprecated. */
  @ApiProperty({ description: 'The rotated key, now deprecated' })
  previous_key_id!: string;
  @ApiProperty()
  grace_period_hours!: number;
  /** When the previous key stops working (401 `key_rotated` after): never later than its own expires_at. */
  @ApiProperty({ format: 'date-time', description: 'When the previous key stops working (401 `key_rotated` after): never later than its own expires_at' })
  previous_key_expires_at!: string;
}
