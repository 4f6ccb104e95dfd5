import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { AdminController, AdminRoute } from '../common/admin-route';
import { ApiCollectionResponse, NoBody } from '@svc/platform';
import { DiscoveryService } from './discovery/discovery.service';
import { AdminPage, AdminQuery, PageQuery } from '../common/admin-query';
import { CatalogQuery, CreateProviderTargetDto, HistoryQuery, UpdateProviderTargetDto } from './dto/provider-target.dto';
import { CatalogPage, DiscoveryResult, HistoryPage, ProviderTargetView, TargetCatalog } from './dto/provider-target.views';
import { ProviderTargetsService, toTargetView } from './provider-targets.service';

/** SPEC.md provider targets: CRUD, discovery and the per-target catalog. */
@AdminController('provider-targets', 'provider targets')
export class ProviderTargetsController {
  constructor(
    private readonly targets: ProviderTargetsService,
    private readonly discovery: DiscoveryService,
  ) {}

  @Post()
  @AdminRoute(
    'admin:write',
    'Create a provider target',
    '`name`, `base_url`, `format` (or `kind`) `openai_compatible` | `ollama`, optional `provider_id`, `api_key` (stored encrypted), `headers`, `models`, `enabled`. The URL must pass the outbound-safety rules (400 `url_not_allowed`); 409 `resource_already_exists` for a taken name or provider_id.',
  )
  @ApiCreatedResponse({ type: ProviderTargetView })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateProviderTargetDto, @Query() _query: AdminQuery): Promise<ProviderTargetView> {
    return this.targets.create(principal, body);
  }

  @Get()
  @AdminRoute('admin:read', 'List the organization’s provider targets', '`offset`, `limit` 1–1000 (default 20).')
  @ApiCollectionResponse(ProviderTargetView, 'The targets, by name')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<AdminPage<ProviderTargetView>> {
    return this.targets.list(principal, { offset: query.offset ?? 0, limit: query.limit ?? 20 });
  }

  @Get(':id')
  @AdminRoute('admin:read', 'One provider target')
  @ApiOkResponse({ type: ProviderTargetView })
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<ProviderTargetView> {
    return toTargetView(await this.targets.load(principal.orgId, id));
  }

  @Patch(':id')
  @AdminRoute('admin:write', 'Update a provider target', 'Any subset of the create fields except provider_id; `api_key: null` removes the stored key.')
  @ApiOkResponse({ type: ProviderTargetView })
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateProviderTargetDto, @Query() _query: AdminQuery): Promise<ProviderTargetView> {
    return this.targets.update(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @AdminRoute('admin:write', 'Delete a provider target and its discovered models')
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<void> {
    await this.targets.remove(principal, id);
  }

  @Post(':id/discover-models')
  @HttpCode(200)
  @AdminRoute(
    'admin:write',
    'Discover the target’s models',
    'Takes no body (a field is a 400). GET `/v1/models` (then `/models`) or Ollama `/api/tags`, with outbound safety: resolved addresses checked, no redirects, a timeout and a size cap. 400 `url_not_allowed` for a refused destination, 502 `discovery_failed` otherwise; every run is in the history.',
  )
  @ApiOkResponse({ type: DiscoveryResult })
  discover(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @NoBody() _body: undefined, @Query() _query: AdminQuery): Promise<DiscoveryResult> {
    return this.discovery.discover(principal, id);
  }

  @Get(':id/catalog')
  @AdminRoute('admin:read', 'The models discovered on a target')
  @ApiOkResponse({ type: TargetCatalog })
  catalog(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<TargetCatalog> {
    return this.discovery.catalogOfTarget(principal, id);
  }
}

/** SPEC.md discovery routes across the organization's targets. */
@AdminController('discovery', 'provider targets')
export class DiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Get('catalog')
  @AdminRoute('admin:read', 'Discovered models across targets', '`provider_id` (one of your targets; 404 otherwise), `limit` 1–1000 (default 200), `cursor` = the previous page’s `next_cursor`. `total` counts every model of the filter.')
  @ApiOkResponse({ type: CatalogPage })
  catalog(@CurrentPrincipal() principal: Principal, @Query() query: CatalogQuery): Promise<CatalogPage> {
    return this.discovery.catalog(principal, query);
  }

  @Get('history')
  @AdminRoute('admin:read', 'Discovery runs, newest first (audit history)', '`limit` 1–1000 (default 50), optional `target_id` (one of your targets; 404 otherwise). `total` counts every run of the filter.')
  @ApiOkResponse({ type: HistoryPage })
  history(@CurrentPrincipal() principal: Principal, @Query() query: HistoryQuery): Promise<HistoryPage> {
    return this.discovery.history(principal, query.limit ?? 50, query.target_id);
  }
}
