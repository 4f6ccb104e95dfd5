import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCollectionResponse } from '@svc/platform';
import { ApiKeyDto, ApiKeysService, CreateApiKeyDto, CreatedApiKeyDto } from '@svc/org-resources';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { NoQueryDto } from '../common/no-query';
import { OrgRoute } from '../common/org-access';
import { Collection, PageQueryDto, pageOf } from '../common/pagination';

const READ = ['keys:read', 'admin:read'];
const WRITE = ['keys:write', 'admin:write'];

@ApiTags('api-keys')
@Controller('api/v1/platform/api-keys')
@UseGuards(OrgAuthGuard)
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @HttpCode(201)
  @OrgRoute({
    summary: 'Create an API key (shown once)',
    level: 'admin',
    scopes: WRITE,
    description:
      'The `key` is returned only in this response; only its hash is stored. Unknown scopes: 400 naming them. ' +
      'A current key with the same name: 409 `resource_already_exists` with `conflicting_id`. An API key cannot grant scopes it does not hold, ' +
      'nor give a key a later `expires_at` than its own (absent: its own; null or later: 403 `FORBIDDEN`).',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  create(@Caller() caller: OrgPrincipal, @Body() body: CreateApiKeyDto, @Query() _query: NoQueryDto): Promise<CreatedApiKeyDto> {
    return this.keys.create(caller, body);
  }

  @Get()
  @OrgRoute({ summary: "List the organization's API keys (never the key itself)", level: 'read', scopes: READ })
  @ApiCollectionResponse(ApiKeyDto, 'Keys, newest first')
  list(@Caller() caller: OrgPrincipal, @Query() query: PageQueryDto): Promise<Collection<ApiKeyDto>> {
    return this.keys.list(caller.orgId, pageOf(query));
  }

  @Get(':id')
  @OrgRoute({ summary: 'One API key (metadata only)', level: 'read', scopes: READ })
  @ApiOkResponse({ type: ApiKeyDto })
  get(@Caller() caller: OrgPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<ApiKeyDto> {
    return this.keys.get(caller.orgId, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @OrgRoute({ summary: 'Revoke an API key', level: 'admin', scopes: WRITE, description: 'Takes effect on every replica at once. Idempotent.' })
  @ApiNoContentResponse()
  async revoke(@Caller() caller: OrgPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<void> {
    await this.keys.revoke(caller.orgId, id);
  }
}
