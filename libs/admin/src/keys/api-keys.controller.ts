import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { ApiCollectionResponse } from '@svc/platform';
import { ApiKeyDto, ApiKeysService, CreateApiKeyDto, CreatedApiKeyDto } from '@svc/org-resources';
import { AdminPage, AdminQuery, PageQuery } from '../common/admin-query';
import { AdminControllerAt, AdminRoute } from '../common/admin-route';

/**
 * SPEC.md's conflict examples `/v1/admin/api-keys` (list, create, delete by id): the organization's
 * gateway keys through the same service as `/api/v1/platform/api-keys`, in the gateway's formats.
 */
@AdminControllerAt('v1/admin/api-keys', 'api-keys')
export class AdminApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @AdminRoute('admin:read', "List the organization's gateway keys (metadata only, never the key)", '`offset`, `limit` 1–1000 (default 20), newest first.')
  @ApiCollectionResponse(ApiKeyDto, 'Keys (never the key itself)')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<AdminPage<ApiKeyDto>> {
    return this.keys.list(principal.orgId, { offset: query.offset ?? 0, limit: query.limit ?? 20 });
  }

  @Post()
  @HttpCode(201)
  @AdminRoute(
    'admin:write',
    'Create a gateway key; the plaintext key is returned once',
    'Body as `POST /api/v1/platform/api-keys`: `name`, `scopes`, optional `ip_allowlist`, `team_id`, `expires_at`. ' +
      'A current key with the same name: 409 `resource_already_exists` with `resource_type` `api_key` and `conflicting_id`. ' +
      'A key cannot grant scopes it does not hold (403 `insufficient_scope`), nor give a later `expires_at` than its own (403 `insufficient_lifetime`).',
  )
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateApiKeyDto, @Query() _query: AdminQuery): Promise<CreatedApiKeyDto> {
    return this.keys.create(principal, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @AdminRoute('admin:write', 'Revoke a gateway key', 'Takes effect on every replica at once; revoking a revoked key is a 204 again. 404 `not_found` (`param` `id`) for an id the organization does not own.')
  @ApiNoContentResponse()
  async revoke(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<void> {
    await this.keys.revoke(principal.orgId, id);
  }
}
