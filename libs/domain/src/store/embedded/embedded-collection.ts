import { isDeepStrictEqual } from 'node:util';
import { aggregate as mingoAggregate, find as mingoFind, Query, update as mingoUpdate } from 'mingo';
import {
  assertDocumentId,
  buildUpsertDocument,
  cloneDocument,
  isDate,
  normalizeUpdate,
  stripUndefined,
  TtlRule,
  ttlRuleOf,
  uniqueIndexesOf,
} from '../document-utils';
import {
  Collection,
  CollectionSpec,
  DuplicateKeyError,
  Filter,
  FindOneAndUpdateOptions,
  FindOneOptions,
  FindOptions,
  indexName,
  PipelineStage,
  SortSpec,
  StoredDocument,
  Update,
  UpdateOptions,
  UpdateResult,
} from '../types';
import { assertStorable } from './persistence';

type AnyObject = Record<string, unknown>;
type T_ANY = Record<string, unknown>;

/** A pipeline stage that is `$match` alone. */
const isMatchStage = (stage: PipelineStage): stage is { $match: unknown } => Object.keys(stage).length === 1 && stage.$match !== null && typeof stage.$match === 'object';

/** What a collection needs from its store. */
export interface EmbeddedCollectionHooks {
  /**
   * Called after every change, to schedule a debounced write. Pure inserts pass the stored
   * documents, which the store can append to its journal instead of rewriting the collection.
   */
  changed(inserted?: readonly T_ANY[]): void;
  /** Throws when the store is closed. */
  assertOpen(): void;
  clock(): number;
}

interface UniqueIndex {
  name: string;
  fields: string[];
  partial: Query | null;
  /** Index key -> `_id` of the document holding it. */
  keys: Map<string, string>;
}

function valueAt(doc: unknown, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A stable key for index values; missing and null are the same key, as in MongoDB. */
function indexKey(doc: unknown, fields: string[]): string {
  return JSON.stringify(
    fields.map((f) => {
      const v = valueAt(doc, f) ?? null;
      return isDate(v) ? { $date: v.toISOString() } : v;
    }),
  );
}

const clone = cloneDocument;

/**
 * One in-memory collection with MongoDB semantics through mingo: unique indexes (compound and
 * partial) are enforced, and documents past their TTL are invisible to every operation and never
 * block a unique key (a conflicting expired document is purged on the spot).
 */
export class EmbeddedCollection<T extends StoredDocument> implements Collection<T> {
  readonly name: string;
  private readonly docs = new Map<string, T>();
  private readonly unique: UniqueIndex[];
  private readonly ttl: TtlRule | null;
  private readonly ttlPartial: Query | null;

  constructor(
    spec: CollectionSpec<T>,
    initial: T[],
    private readonly hooks: EmbeddedCollectionHooks,
  ) {
    this.name = spec.name;
    this.ttl = ttlRuleOf(spec);
    this.ttlPartial = this.ttl?.partial ? new Query(this.ttl.partial) : null;
    this.unique = uniqueIndexesOf(spec).map((index) => ({
      name: indexName(index),
      fields: Object.keys(index.fields),
      partial: index.partialFilterExpression ? new Query(index.partialFilterExpression) : null,
      keys: new Map<string, string>(),
    }));
    for (const doc of initial) {
      this.docs.set(doc._id, doc);
      this.indexAdd(doc);
    }
  }

  async insertOne(doc: T): Promise<T> {
    this.hooks.assertOpen();
    const stored = this.insertDocument(doc);
    this.hooks.changed([stored as unknown as T_ANY]);
    return clone(stored);
  }

  async insertMany(docs: T[]): Promise<T[]> {
    this.hooks.assertOpen();
    const out: T[] = [];
    const stored: T_ANY[] = [];
    try {
      for (const doc of docs) {
        const document = this.insertDocument(doc);
        stored.push(document as unknown as T_ANY);
        out.push(clone(document));
      }
    } finally {
      if (stored.length) this.hooks.changed(stored);
    }
    return out;
  }

  async insertNew(docs: T[]): Promise<number> {
    this.hooks.assertOpen();
    const stored: T_ANY[] = [];
    let failure: unknown = null;
    try {
      for (const doc of docs) {
        try {
          stored.push(this.insertDocument(doc) as unknown as T_ANY);
        } catch (error) {
          if (error instanceof DuplicateKeyError && error.index === '_id_') continue;
          failure ??= error;
        }
      }
    } finally {
      if (stored.length) this.hooks.changed(stored);
    }
    if (failure) throw failure;
    return stored.length;
  }

  async findOne(filter: Filter<T>, options: FindOneOptions = {}): Promise<T | null> {
    this.hooks.assertOpen();
    const [first] = this.query(filter, { ...options, limit: 1 });
    return first ? clone(first) : null;
  }

  async find(filter: Filter<T>, options: FindOptions = {}): Promise<T[]> {
    this.hooks.assertOpen();
    return clone(this.query(filter, options));
  }

  async count(filter: Filter<T>): Promise<number> {
    this.hooks.assertOpen();
    return this.matching(filter).length;
  }

  async updateOne(filter: Filter<T>, update: Update<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    this.hooks.assertOpen();
    const normalized = normalizeUpdate(update);
    const target = this.first(filter);
    if (target) return { matched: 1, modified: this.replaceWith(target, normalized) ? 1 : 0 };
    if (!options.upsert) return { matched: 0, modified: 0 };
    const inserted = this.upsertDocument(filter, normalized ?? {});
    return { matched: 0, modified: 0, upsertedId: inserted._id };
  }

  async updateMany(filter: Filter<T>, update: Update<T>): Promise<UpdateResult> {
    this.hooks.assertOpen();
    const normalized = normalizeUpdate(update);
    const targets = this.matching(filter);
    let modified = 0;
    for (const target of targets) if (this.replaceWith(target, normalized)) modified += 1;
    return { matched: targets.length, modified };
  }

  async findOneAndUpdate(
    filter: Filter<T>,
    update: Update<T>,
    options: FindOneAndUpdateOptions = {},
  ): Promise<T | null> {
    this.hooks.assertOpen();
    const normalized = normalizeUpdate(update);
    const target = this.first(filter, options.sort);
    if (target) {
      const before = clone(target);
      this.replaceWith(target, normalized);
      return options.returnDocument === 'before' ? before : clone(this.docs.get(target._id) as T);
    }
    if (!options.upsert) return null;
    const inserted = this.upsertDocument(filter, normalized ?? {});
    return options.returnDocument === 'before' ? null : clone(inserted);
  }

  async deleteOne(filter: Filter<T>): Promise<number> {
    this.hooks.assertOpen();
    const target = this.first(filter);
    if (!target) return 0;
    this.remove(target);
    this.hooks.changed();
    return 1;
  }

  async deleteMany(filter: Filter<T>): Promise<number> {
    this.hooks.assertOpen();
    const targets = this.matching(filter);
    for (const target of targets) this.remove(target);
    if (targets.length) this.hooks.changed();
    return targets.length;
  }

  /**
   * Leading `$match` stages select from the stored documents in place (a report filters by
   * organization and period first), so only the matching ones are copied for the rest of the
   * pipeline, not every document of every organization.
   */
  async aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]> {
    this.hooks.assertOpen();
    let start = 0;
    while (start < pipeline.length && isMatchStage(pipeline[start])) start++;
    const filters = pipeline.slice(0, start).map((stage) => stage.$match as Filter<T>);
    const docs = filters.length === 0 ? this.visible() : this.matching(filters.length === 1 ? filters[0] : ({ $and: filters } as Filter<T>));
    return mingoAggregate(clone(docs) as unknown as AnyObject[], pipeline.slice(start)) as R[];
  }

  /** Removes expired documents; returns how many. */
  sweepExpired(): number {
    let removed = 0;
    for (const doc of [...this.docs.values()]) {
      if (this.isExpired(doc)) {
        this.remove(doc);
        removed += 1;
      }
    }
    if (removed) this.hooks.changed();
    return removed;
  }

  /** Every stored document (expired ones not yet swept included), for persistence. */
  snapshot(): T[] {
    return [...this.docs.values()];
  }

  // ---- internals ----

  private isExpired(doc: T): boolean {
    if (!this.ttl) return false;
    const value = valueAt(doc, this.ttl.field);
    if (!isDate(value)) return false;
    if (this.ttlPartial && !this.ttlPartial.test(doc as unknown as AnyObject)) return false;
    return value.getTime() < this.hooks.clock() - this.ttl.seconds * 1000;
  }

  private visible(): T[] {
    const all = [...this.docs.values()];
    return this.ttl ? all.filter((doc) => !this.isExpired(doc)) : all;
  }

  /** Candidates for a filter: a direct lookup when the filter names a string `_id`. */
  private candidates(filter: Filter<T>): T[] {
    const id = (filter as { _id?: unknown })._id;
    if (typeof id === 'string') {
      const doc = this.docs.get(id);
      return doc && !this.isExpired(doc) ? [doc] : [];
    }
    return this.visible();
  }

  /** Matching stored documents (live references), in natural (insertion) order. */
  private matching(filter: Filter<T>): T[] {
    const query = new Query(filter as AnyObject);
    return this.candidates(filter).filter((doc) => query.test(doc as unknown as AnyObject));
  }

  private query(filter: Filter<T>, options: FindOptions): T[] {
    const cursor = mingoFind(this.candidates(filter), filter as AnyObject, options.projection);
    if (options.sort) cursor.sort(options.sort);
    if (options.skip) cursor.skip(options.skip);
    if (options.limit) cursor.limit(options.limit);
    return cursor.all() as T[];
  }

  private first(filter: Filter<T>, sort?: SortSpec): T | undefined {
    const [hit] = this.query(filter, { sort, limit: 1 });
    return hit ? this.docs.get(hit._id) : undefined;
  }

  private insertDocument(input: T): T {
    assertDocumentId(this.name, input);
    const doc = stripUndefined(clone(input));
    assertStorable(this.name, doc);
    this.assertUnique(doc, null);
    this.docs.set(doc._id, doc);
    this.indexAdd(doc);
    return doc;
  }

  private upsertDocument(filter: Filter<T>, update: Update<T>): T {
    const stored = this.insertDocument(buildUpsertDocument(this.name, filter, update));
    this.hooks.changed();
    return stored;
  }

  /** Applies an update to a stored document; returns whether it changed. */
  private replaceWith(target: T, update: Update<T> | null): boolean {
    if (!update) return false;
    const { $setOnInsert: _ignored, ...rest } = update;
    if (!Object.keys(rest).length) return false;
    const next = clone(target);
    mingoUpdate(next as unknown as AnyObject, rest as AnyObject, undefined, undefined, { cloneMode: 'deep' });
    const normalized = stripUndefined(next);
    if (isDeepStrictEqual(normalized, target)) return false;
    assertStorable(this.name, normalized);
    this.indexRemove(target);
    try {
      this.assertUnique(normalized, target._id);
    } catch (error) {
      this.indexAdd(target);
      throw error;
    }
    this.docs.set(target._id, normalized);
    this.indexAdd(normalized);
    this.hooks.changed();
    return true;
  }

  private remove(doc: T): void {
    this.indexRemove(doc);
    this.docs.delete(doc._id);
  }

  /** Throws DuplicateKeyError on a live conflict; purges an expired conflicting document. */
  private assertUnique(doc: T, selfId: string | null): void {
    if (selfId === null) {
      const existing = this.docs.get(doc._id);
      if (existing && this.isExpired(existing)) this.remove(existing);
      else if (existing) throw new DuplicateKeyError(this.name, '_id_', ['_id'], { _id: doc._id });
    }
    for (const index of this.unique) {
      if (index.partial && !index.partial.test(doc as unknown as AnyObject)) continue;
      const holderId = index.keys.get(indexKey(doc, index.fields));
      if (holderId === undefined || holderId === selfId) continue;
      const holder = this.docs.get(holderId) as T;
      if (this.isExpired(holder)) {
        this.remove(holder);
        continue;
      }
      const keyValue = Object.fromEntries(index.fields.map((f) => [f, valueAt(doc, f) ?? null]));
      throw new DuplicateKeyError(this.name, index.name, index.fields, keyValue);
    }
  }

  private indexAdd(doc: T): void {
    for (const index of this.unique) {
      if (index.partial && !index.partial.test(doc as unknown as AnyObject)) continue;
      index.keys.set(indexKey(doc, index.fields), doc._id);
    }
  }

  private indexRemove(doc: T): void {
    for (const index of this.unique) {
      const key = indexKey(doc, index.fields);
      if (index.keys.get(key) === doc._id) index.keys.delete(key);
    }
  }
}
