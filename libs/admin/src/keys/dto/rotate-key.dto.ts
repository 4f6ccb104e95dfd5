import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNumber, IsOptional, Max, Min } from 'class-validator';
import { CreateBody, IsOptionalNonNull } from '@svc/platform';
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
}

/** The same, for callers that send no body (SPEC.md: the route takes none). */
export class RotateKeyQuery extends AdminQuery {
  @ApiPropertyOptional(graceDoc)
  @IsOptional()
  @Type(() => Number)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_GRACE_HOURS)
  grace_period_hours?: number;
}

/** The replacement key: `key` is its plaintext, shown this once. */
export interface RotatedKeyResponse {
  id: string;
  name: string;
  key: string;
  key_prefix: string;
  last_four: string;
  scopes: string[];
  created_at: string;
  /** The rotated key, now deprecated. */
  previous_key_id: string;
  grace_period_hours: number;
  /** When the previous key stops working (401 `key_rotated` after). */
  previous_key_expires_at: string;
}
