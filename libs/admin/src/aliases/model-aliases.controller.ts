import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { AdminQuery, PageQuery } from '../common/admin-query';
import { AdminController, AdminRoute } from '../common/admin-route';
import { CreateModelAliasDto, ModelAliasPage, ModelAliasView, UpdateModelAliasDto } from './dto/model-alias.dto';
import { ModelAliasesService, toAliasView } from './model-aliases.service';

/** SPEC.md model aliases: per-organization CRUD; the built-in aliases are listed read-only. */
@AdminController('model-aliases', 'model aliases')
export class ModelAliasesController {
  constructor(private readonly aliases: ModelAliasesService) {}

  @Post()
  @AdminRoute('admin:write', 'Create a model alias', '`alias`, `model`, optional `provider`, `description`. 409 `resource_already_exists` (`resource_type: model_alias`) for a taken alias; used from the next request.')
  @ApiCreatedResponse({ type: ModelAliasView })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateModelAliasDto, @Query() _query: AdminQuery): Promise<ModelAliasView> {
    return this.aliases.create(principal, body);
  }

  @Get()
  @AdminRoute(
    'admin:read',
    'List the organization’s aliases (by name, paginated), and the built-in ones (read-only)',
    '`offset`, `limit` 1–1000 (default 20); `total` counts every custom alias. `builtin` lists every built-in alias on each page.',
  )
  @ApiOkResponse({ type: ModelAliasPage })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<ModelAliasPage> {
    return this.aliases.list(principal, { offset: query.offset ?? 0, limit: query.limit ?? 20 });
  }

  @Get(':id')
  @AdminRoute('admin:read', 'One model alias')
  @ApiOkResponse({ type: ModelAliasView })
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<ModelAliasView> {
    return toAliasView(await this.aliases.load(principal.orgId, id));
  }

  @Patch(':id')
  @AdminRoute('admin:write', 'Update a model alias')
  @ApiOkResponse({ type: ModelAliasView })
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateModelAliasDto, @Query() _query: AdminQuery): Promise<ModelAliasView> {
    return this.aliases.update(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @AdminRoute('admin:write', 'Delete a model alias')
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<void> {
    await this.aliases.remove(principal, id);
  }
}
