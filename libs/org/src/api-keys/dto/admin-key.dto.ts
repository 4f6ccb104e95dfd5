import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { CreateApiKeyDto } from '@svc/org-resources';
import { CreateBody } from '@svc/platform';

/** The scopes `POST /api/v1/admin/keys` gives a key when none are sent: a gateway key that may proxy (`gateway:write`, which implies `gateway:read`). */
export const DEFAULT_ADMIN_KEY_SCOPES: readonly string[] = Object.freeze(['gateway:write']);

/**
 * `POST /api/v1/admin/keys` (SPEC.md "Gateway admin endpoints", "Also referenced": `name`, `org_id`):
 * the body of `POST /api/v1/platform/api-keys`, validated by the same rules, plus `org_id`, with
 * `scopes` optional. The default is a field initializer, not a validation rule of its own: a
 * `scopes` sent (`null` included) is checked exactly as on the platform route.
 */
@CreateBody()
export class CreateAdminKeyDto extends CreateApiKeyDto {
  @ApiProperty({ description: "The caller's organization (another organization's id: 404 `NOT_FOUND`)", example: 'org_0Ov3rK8dQ' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  org_id!: string;

  @ApiPropertyOptional({ type: [String], default: DEFAULT_ADMIN_KEY_SCOPES, description: `As on POST /api/v1/platform/api-keys; absent: ${DEFAULT_ADMIN_KEY_SCOPES.join(', ')}` })
  override scopes: string[] = [...DEFAULT_ADMIN_KEY_SCOPES];
}
