import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { DuplicateKeyError, ModelAliasEntity, OrgId, Patch, Repositories } from '@svc/domain';
import { invalidRequest, InvalidationBus, notFound } from '@svc/platform';
import { BUILTIN_MODEL_ALIASES, providerRegistry } from '@svc/proxy';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import { alreadyExists } from '../common/admin-errors';
import { BuiltinAliasView, CreateModelAliasDto, ModelAliasPage, ModelAliasView, UpdateModelAliasDto } from './dto/model-alias.dto';

/** What the proxy's resolver maps the alias to (see ModelAliasResolver). */
export function resolvesTo(alias: Pick<ModelAliasEntity, 'model' | 'provider'>): string {
  return alias.provider && !alias.model.includes('/') ? `${alias.provider}/${alias.model}` : alias.model;
}

export function toAliasView(alias: ModelAliasEntity): ModelAliasView {
  return {
    id: alias._id,
    alias: alias.alias,
    model: alias.model,
    provider: alias.provider,
    description: alias.description,
    resolves_to: resolvesTo(alias),
    builtin: false,
    created_at: alias.created_at.toISOString(),
    updated_at: alias.updated_at.toISOString(),
  };
}

export function builtinAliases(): BuiltinAliasView[] {
  return Object.entries(BUILTIN_MODEL_ALIASES)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([alias, model]) => ({ alias, model, resolves_to: model, builtin: true }));
}

/**
 * An organization's model aliases, resolved by the proxy before governance. Built-in aliases are
 * read-only: a custom alias cannot take a built-in name. Every change publishes `model-alias`
 * (id = organization id) so the next request resolves with it.
 */
@Injectable()
export class ModelAliasesService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
  ) {}

  async load(orgId: OrgId, id: string): Promise<ModelAliasEntity> {
    const alias = await this.repositories.modelAliases.findById(orgId, id);
    if (!alias) throw notFound('Model alias', 'alias_id');
    return alias;
  }

  /** A page of the custom aliases by name (`total` counts them all), with every built-in alias. */
  async list(principal: Principal, page: { offset: number; limit: number }): Promise<ModelAliasPage> {
    const result = await this.repositories.modelAliases.list(principal.orgId, { ...page, sort: { alias: 1, _id: 1 } });
    return { items: result.items.map(toAliasView), total: result.total, offset: result.offset, limit: result.limit, builtin: builtinAliases() };
  }

  async create(principal: Principal, body: CreateModelAliasDto): Promise<ModelAliasView> {
    const orgId = principal.orgId;
    this.checkName(body.alias);
    const provider = await this.provider(orgId, body.provider);
    try {
      const created = await this.repositories.modelAliases.create(orgId, {
        alias: body.alias,
        model: this.model(body.model),
        provider,
        description: body.description?.trim() || null,
      });
      await this.invalidation.publish('model-alias', orgId);
      return toAliasView(created);
    } catch (error) {
      throw await this.conflict(orgId, error, body.alias);
    }
  }

  async update(principal: Principal, id: string, body: UpdateModelAliasDto): Promise<ModelAliasView> {
    const orgId = principal.orgId;
    const alias = await this.load(orgId, id);
    const patch: Patch<ModelAliasEntity> = {};
    if (body.alias !== undefined) {
      this.checkName(body.alias);
      patch.alias = body.alias;
    }
    if (body.model !== undefined) patch.model = this.model(body.model);
    if (body.provider !== undefined) patch.provider = await this.provider(orgId, body.provider);
    if (body.description !== undefined) patch.description = body.description?.trim() || null;
    try {
      const updated = await this.repositories.modelAliases.updateById(orgId, alias._id, patch);
      if (!updated) throw notFound('Model alias', 'alias_id');
      await this.invalidation.publish('model-alias', orgId);
      return toAliasView(updated);
    } catch (error) {
      throw await this.conflict(orgId, error, patch.alias ?? alias.alias);
    }
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const alias = await this.load(principal.orgId, id);
    await this.repositories.modelAliases.deleteById(principal.orgId, alias._id);
    await this.invalidation.publish('model-alias', principal.orgId);
  }

  private checkName(alias: string): void {
    if (Object.prototype.hasOwnProperty.call(BUILTIN_MODEL_ALIASES, alias)) {
      throw invalidRequest(`'${alias}' is a built-in alias (read-only); choose another name`, 'alias', 'builtin_alias');
    }
  }

  private model(model: string): string {
    const trimmed = model.trim();
    if (!trimmed) throw invalidRequest('model must not be blank', 'model');
    return trimmed;
  }

  /** A registry id or alias (canonical id kept), or one of the organization's provider targets. */
  private async provider(orgId: OrgId, provider: string | null | undefined): Promise<string | null> {
    if (provider === undefined || provider === null) return null;
    const lower = provider.trim().toLowerCase();
    const builtIn = providerRegistry.get(lower);
    if (builtIn) return builtIn.id;
    if (lower && (await this.repositories.providerTargets.findByProviderId(orgId, lower))) return lower;
    throw invalidRequest(`Unknown provider '${provider}'`, 'provider', 'unknown_provider');
  }

  private async conflict(orgId: OrgId, error: unknown, name: string): Promise<unknown> {
    if (!(error instanceof DuplicateKeyError)) return error;
    const existing = await this.repositories.modelAliases.findByAlias(orgId, name);
    return alreadyExists('model_alias', `A model alias '${name}' already exists`, existing?._id ?? null);
  }
}
