import { Body, Controller, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import { ApiKeysService, CreatedApiKeyDto } from '@svc/org-resources';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { NoQueryDto } from '../common/no-query';
import { OrgRoute } from '../common/org-access';
import { orgErrors } from '../common/org-errors';
import { CreateAdminKeyDto } from './dto/admin-key.dto';

/**
 * SPEC.md "Gateway admin endpoints", "Also referenced": `POST /api/v1/admin/keys` with `name` and
 * `org_id`. The same key creation as `POST /api/v1/platform/api-keys` (ApiKeysService, the same
 * access rule, answer and 409), for the organization named in the body.
 */
@ApiTags('api-keys')
@Controller('api/v1/admin/keys')
@UseGuards(OrgAuthGuard)
export class AdminKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @HttpCode(201)
  @OrgRoute({
    summary: 'Create a gateway API key for the organization (shown once)',
    level: 'admin',
    scopes: ['keys:write', 'admin:write'],
    description:
      "As `POST /api/v1/platform/api-keys`, with `org_id`, which must be the caller's organization (404 `NOT_FOUND` otherwise, nothing created). " +
      '`scopes` is optional here: absent, the key gets `gateway:write` (proxy requests; implies `gateway:read`). ' +
      'A current key with the same name: 409 `resource_already_exists`.',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  create(@Caller() caller: OrgPrincipal, @Body() body: CreateAdminKeyDto, @Query() _query: NoQueryDto): Promise<CreatedApiKeyDto> {
    const { org_id: orgId, ...key } = body;
    if (orgId !== caller.orgId) throw orgErrors.notFound('Organization', orgId);
    return this.keys.create(caller, key);
  }
}
