import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, Repositories } from '@svc/domain';
import { InvalidationBus } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import { TtlCache } from './ttl-cache';

/**
 * Built-in aliases: stable names that follow the current model of a family (SPEC.md "Built-in model
 * aliases are resolved to current model names and may be remapped over time"). Data, not code.
 */
export const BUILTIN_MODEL_ALIASES: Readonly<Record<string, string>> = {
  'gpt-latest': 'gpt-4.1',
  'gpt-mini-latest': 'gpt-4.1-mini',
  'claude-opus-latest': 'claude-opus-5-5',
  'claude-sonnet-latest': 'claude-sonnet-5',
  'claude-haiku-latest': 'claude-haiku-4-5',
  'gemini-pro-latest': 'gemini-2.5-pro',
  'gemini-flash-latest': 'gemini-2.5-flash',
  'mistral-large': 'mistral-large-latest',
  'codestral': 'codestral-latest',
};

/** Built-in aliases overlaid by the organization's own (cached 5 s, invalidated on change). */
@Injectable()
export class ModelAliasResolver {
  private readonly cache = new TtlCache<Map<string, string>>(5_000);

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) invalidation: InvalidationBus,
  ) {
    invalidation.subscribe('model-alias', (orgId) => this.cache.delete(orgId));
  }

  aliases(orgId: string): Promise<Map<string, string>> {
    return this.cache.get(orgId, async () => {
      const aliases = new Map(Object.entries(BUILTIN_MODEL_ALIASES));
      for (const alias of await this.repositories.modelAliases.listAll(asOrgId(orgId))) {
        aliases.set(alias.alias, alias.provider && !alias.model.includes('/') ? `${alias.provider}/${alias.model}` : alias.model);
      }
      return aliases;
    });
  }
}
