import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { MODEL_ALIASES, ModelAliasEntity } from './model-alias.entity';

export interface NewModelAlias {
  alias: string;
  model: string;
  provider?: string | null;
  description?: string | null;
}

export class ModelAliasRepository extends TenantRepository<ModelAliasEntity> {
  constructor(store: DocumentStore) {
    super(store, MODEL_ALIASES);
    this.defaultSort = { alias: 1 };
  }

  /** Throws DuplicateKeyError (index `org_alias_unique`) when the alias exists in the org. */
  create(orgId: OrgId, input: NewModelAlias, now = new Date()): Promise<ModelAliasEntity> {
    return this.insertIn(orgId, {
      _id: newId('modelAlias'),
      alias: input.alias,
      model: input.model,
      provider: input.provider ?? null,
      description: input.description ?? null,
      created_at: now,
      updated_at: now,
    });
  }

  findByAlias(orgId: OrgId, alias: string): Promise<ModelAliasEntity | null> {
    return this.findOneIn(orgId, { alias });
  }

  /** Every alias of the org (for the resolver's cache), at most 1000. */
  listAll(orgId: OrgId): Promise<ModelAliasEntity[]> {
    return this.findIn(orgId, {}, { sort: { alias: 1 }, limit: 1000 });
  }
}
