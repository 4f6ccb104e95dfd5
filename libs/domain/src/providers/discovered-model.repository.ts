import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore, Filter } from '../store/types';
import { DISCOVERED_MODELS, DiscoveredModelEntity } from './discovered-model.entity';

export interface DiscoveredModelInput {
  model_id: string;
  owned_by?: string | null;
  context_window?: number | null;
}

export interface CatalogPage {
  items: DiscoveredModelEntity[];
  /** Pass back as `cursor` for the next page; null at the end. */
  next_cursor: string | null;
}

export class DiscoveredModelRepository extends TenantRepository<DiscoveredModelEntity> {
  constructor(store: DocumentStore) {
    super(store, DISCOVERED_MODELS);
    this.defaultSort = { model_id: 1, _id: 1 };
    this.stampsUpdatedAt = false;
  }

  /**
   * Makes the target's catalog exactly `models`: new ones are added, known ones refreshed, missing
   * ones removed. Returns the counts.
   */
  async replaceForTarget(
    orgId: OrgId,
    target: { id: string; provider_id: string },
    models: DiscoveredModelInput[],
    now = new Date(),
  ): Promise<{ added: number; removed: number; total: number }> {
    let added = 0;
    const unique = new Map(models.map((m) => [m.model_id, m]));
    for (const model of unique.values()) {
      const result = await this.updateOneIn(
        orgId,
        { target_id: target.id, model_id: model.model_id },
        {
          $set: {
            provider_id: target.provider_id,
            owned_by: model.owned_by ?? null,
            context_window: model.context_window ?? null,
            last_seen_at: now,
          },
          $setOnInsert: { _id: newId('discoveredModel'), discovered_at: now },
        },
        { upsert: true },
      );
      if (result.upsertedId) added += 1;
    }
    const removed = await this.deleteManyIn(orgId, { target_id: target.id, model_id: { $nin: [...unique.keys()] } });
    return { added, removed, total: unique.size };
  }

  listByTarget(orgId: OrgId, targetId: string): Promise<DiscoveredModelEntity[]> {
    return this.findIn(orgId, { target_id: targetId }, { sort: { model_id: 1 } });
  }

  /** The org's discovered models, optionally of one provider, cursor-paged in `_id` order. */
  async catalog(orgId: OrgId, options: { provider_id?: string; limit?: number; cursor?: string | null } = {}): Promise<CatalogPage> {
    const limit = Math.min(1000, Math.max(1, options.limit ?? 200));
    const filter: Filter<DiscoveredModelEntity> = {};
    if (options.provider_id) filter.provider_id = options.provider_id;
    if (options.cursor) filter._id = { $gt: options.cursor };
    const items = await this.findIn(orgId, filter, { sort: { _id: 1 }, limit: limit + 1 });
    const more = items.length > limit;
    const page = more ? items.slice(0, limit) : items;
    return { items: page, next_cursor: more ? page[page.length - 1]._id : null };
  }

  deleteByTarget(orgId: OrgId, targetId: string): Promise<number> {
    return this.deleteManyIn(orgId, { target_id: targetId });
  }
}
