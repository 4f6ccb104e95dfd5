import type {
  Collection,
  CollectionSpec,
  DocumentStore,
  Filter,
  FindOneAndUpdateOptions,
  FindOneOptions,
  FindOptions,
  PipelineStage,
  SortSpec,
  Update,
  UpdateOptions,
  UpdateResult,
} from '../store/types';
import type { OrgId, TenantDocument } from './tenancy';

export interface PageRequest {
  /** Default 0. */
  offset?: number;
  /** Default 20, at most 1000. */
  limit?: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

/** Fields a partial update may change: never `_id`, `org_id` or `created_at`. */
export type Patch<T> = Partial<Omit<T, '_id' | 'org_id' | 'created_at'>>;

export interface ListOptions<T> extends PageRequest {
  filter?: Filter<T>;
  sort?: SortSpec;
}

const MAX_PAGE = 1000;

export function pageBounds(page: PageRequest = {}): { offset: number; limit: number } {
  const offset = Math.max(0, Math.floor(page.offset ?? 0));
  const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(page.limit ?? 20)));
  return { offset, limit };
}

/** Stages that read other collections: refused in a tenant-scoped aggregation. */
const CROSS_COLLECTION_STAGES = new Set(['$lookup', '$graphLookup', '$unionWith', '$out', '$merge']);

/**
 * Base of every tenant-scoped repository. The collection is private: subclasses reach it only
 * through helpers that take an `OrgId` and add `org_id` to the filter themselves, or through
 * `acrossTenants`, whose name marks the few deliberate cross-tenant lookups.
 */
export abstract class TenantRepository<T extends TenantDocument> {
  private readonly collection: Collection<T>;
  /** Defaults for `list` when the caller gives no sort. */
  protected defaultSort: SortSpec = { created_at: -1, _id: -1 };
  /** Whether `updateById` stamps `updated_at`. */
  protected stampsUpdatedAt = true;

  protected constructor(store: DocumentStore, spec: CollectionSpec<T>) {
    this.collection = store.collection(spec);
  }

  /** One document of the organization, by id. */
  findById(orgId: OrgId, id: string): Promise<T | null> {
    return this.collection.findOne(this.scope(orgId, { _id: id } as Filter<T>));
  }

  /** A page of the organization's documents, with the total. */
  async list(orgId: OrgId, options: ListOptions<T> = {}): Promise<Page<T>> {
    const { offset, limit } = pageBounds(options);
    const filter = this.scope(orgId, options.filter);
    const [items, total] = await Promise.all([
      this.collection.find(filter, { sort: options.sort ?? this.defaultSort, skip: offset, limit }),
      this.collection.count(filter),
    ]);
    return { items, total, offset, limit };
  }

  count(orgId: OrgId, filter?: Filter<T>): Promise<number> {
    return this.collection.count(this.scope(orgId, filter));
  }

  /** Sets the given fields (undefined ones are left alone); returns the updated document. */
  updateById(orgId: OrgId, id: string, patch: Patch<T>): Promise<T | null> {
    const fields: Record<string, unknown> = { ...patch };
    delete fields['_id'];
    delete fields['org_id'];
    delete fields['created_at'];
    if (this.stampsUpdatedAt) fields['updated_at'] = new Date();
    return this.collection.findOneAndUpdate(this.scope(orgId, { _id: id } as Filter<T>), { $set: fields } as Update<T>);
  }

  /** Deletes one document of the organization; false when it does not exist there. */
  async deleteById(orgId: OrgId, id: string): Promise<boolean> {
    return (await this.collection.deleteOne(this.scope(orgId, { _id: id } as Filter<T>))) === 1;
  }

  // ---- tenant-scoped helpers for subclasses ----

  /** The filter with the organization added (it overrides any `org_id` in the filter). */
  protected scope(orgId: OrgId, filter: Filter<T> = {}): Filter<T> {
    return { ...filter, org_id: orgId } as Filter<T>;
  }

  protected insertIn(orgId: OrgId, doc: Omit<T, 'org_id'>): Promise<T> {
    return this.collection.insertOne({ ...doc, org_id: orgId } as unknown as T);
  }

  protected findOneIn(orgId: OrgId, filter: Filter<T>, options?: FindOneOptions): Promise<T | null> {
    return this.collection.findOne(this.scope(orgId, filter), options);
  }

  protected findIn(orgId: OrgId, filter: Filter<T>, options?: FindOptions): Promise<T[]> {
    return this.collection.find(this.scope(orgId, filter), options);
  }

  protected updateOneIn(orgId: OrgId, filter: Filter<T>, update: Update<T>, options?: UpdateOptions): Promise<UpdateResult> {
    return this.collection.updateOne(this.scope(orgId, filter), update, options);
  }

  protected updateManyIn(orgId: OrgId, filter: Filter<T>, update: Update<T>): Promise<UpdateResult> {
    return this.collection.updateMany(this.scope(orgId, filter), update);
  }

  protected findOneAndUpdateIn(
    orgId: OrgId,
    filter: Filter<T>,
    update: Update<T>,
    options?: FindOneAndUpdateOptions,
  ): Promise<T | null> {
    return this.collection.findOneAndUpdate(this.scope(orgId, filter), update, options);
  }

  protected deleteManyIn(orgId: OrgId, filter: Filter<T>): Promise<number> {
    return this.collection.deleteMany(this.scope(orgId, filter));
  }

  /** An aggregation over the organization's documents only (a leading `$match` on `org_id`). */
  protected aggregateIn<R>(orgId: OrgId, pipeline: PipelineStage[]): Promise<R[]> {
    for (const stage of pipeline) {
      const operator = Object.keys(stage)[0];
      if (CROSS_COLLECTION_STAGES.has(operator)) throw new Error(`${operator} is not allowed in a tenant-scoped aggregation`);
    }
    return this.collection.aggregate<R>([{ $match: { org_id: orgId } }, ...pipeline]);
  }

  /**
   * The collection without tenant scoping, for the few deliberate cross-tenant lookups (key by
   * hash, user by e-mail at login, background sweeps). Methods using it say so in their name.
   */
  protected get acrossTenants(): Collection<T> {
    return this.collection;
  }
}
