/**
 * The document-store abstraction every repository is written against. Two adapters implement it
 * with the same semantics: an embedded file-backed store (mingo for MongoDB query/update/aggregate
 * semantics) and MongoDB through mongoose. Filters and updates use MongoDB syntax.
 */

/** Any stored document: a string `_id` (the public id, with its prefix). */
export interface StoredDocument {
  _id: string;
}

/** MongoDB query syntax. Keys are field paths (dotted paths allowed) or top-level `$and`/`$or`/`$nor`. */
export type Filter<T> = { [K in keyof T]?: unknown } & { [path: string]: unknown };

/** MongoDB update operators. A replacement document (no operators) is not accepted. */
export interface Update<T> {
  $set?: Partial<T> & { [path: string]: unknown };
  $setOnInsert?: Partial<T> & { [path: string]: unknown };
  $unset?: { [path: string]: '' | 1 | true };
  $inc?: { [path: string]: number };
  $push?: { [path: string]: unknown };
  $addToSet?: { [path: string]: unknown };
  $pull?: { [path: string]: unknown };
  $min?: { [path: string]: unknown };
  $max?: { [path: string]: unknown };
}

export type SortSpec = Record<string, 1 | -1>;
export type Projection = Record<string, 0 | 1>;
/** One aggregation stage, e.g. `{ $match: {...} }`. */
export type PipelineStage = Record<string, unknown>;

export interface FindOneOptions {
  sort?: SortSpec;
  projection?: Projection;
}

export interface FindOptions extends FindOneOptions {
  skip?: number;
  limit?: number;
}

export interface UpdateOptions {
  upsert?: boolean;
}

export interface FindOneAndUpdateOptions extends UpdateOptions {
  /** Which version of the document to return; default `after`. */
  returnDocument?: 'before' | 'after';
  sort?: SortSpec;
}

export interface UpdateResult {
  matched: number;
  modified: number;
  /** Set when an upsert inserted a document. */
  upsertedId?: string;
}

/** One index, as data. Every index says which query it serves. */
export interface IndexSpec {
  fields: Record<string, 1 | -1>;
  unique?: boolean;
  /** TTL: documents expire `expireAfterSeconds` after the date in the (single) indexed field. */
  expireAfterSeconds?: number;
  /** Only documents matching this filter are indexed (unique and TTL apply to them only). */
  partialFilterExpression?: Record<string, unknown>;
  /** Index name; defaults to MongoDB's `field_1_other_-1` form. */
  name?: string;
  /** The query this index serves. */
  comment: string;
}

export interface CollectionSpec<T extends StoredDocument> {
  name: string;
  indexes: IndexSpec[];
  /**
   * Write-mostly (usage records): the embedded store keeps it on disk only until something reads
   * it (see DeferredCollection). Inserts must use fresh `_id`s. MongoDB ignores it.
   */
  deferLoad?: boolean;
  /** Never read; ties the spec to its document type. */
  readonly __document?: T;
}

/** Declares a collection spec with its document type. */
export function defineCollection<T extends StoredDocument>(name: string, indexes: IndexSpec[], options: { deferLoad?: boolean } = {}): CollectionSpec<T> {
  return options.deferLoad ? { name, indexes, deferLoad: true } : { name, indexes };
}

export interface Collection<T extends StoredDocument> {
  readonly name: string;
  insertOne(doc: T): Promise<T>;
  /** Ordered: documents before a failing one stay inserted. */
  insertMany(docs: T[]): Promise<T[]>;
  /**
   * Idempotent per document, for batches that may be retried after a partial write: documents
   * whose `_id` is already stored (or repeated in the batch) are skipped. Unordered: any other
   * failure (a duplicate on another unique index, a DocumentRefusedError) is thrown once the other
   * documents are in (an unloaded deferred collection refuses a batch holding a document it cannot
   * store whole: none of it is in). Returns how many documents were inserted.
   */
  insertNew(docs: T[]): Promise<number>;
  findOne(filter: Filter<T>, options?: FindOneOptions): Promise<T | null>;
  find(filter: Filter<T>, options?: FindOptions): Promise<T[]>;
  count(filter: Filter<T>): Promise<number>;
  updateOne(filter: Filter<T>, update: Update<T>, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter<T>, update: Update<T>): Promise<UpdateResult>;
  findOneAndUpdate(filter: Filter<T>, update: Update<T>, options?: FindOneAndUpdateOptions): Promise<T | null>;
  deleteOne(filter: Filter<T>): Promise<number>;
  deleteMany(filter: Filter<T>): Promise<number>;
  aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]>;
}

export type StoreStatus = 'connected' | 'disconnected' | 'not_configured';

/** Indexes of a collection that the store could not build (or an obsolete one it could not drop), and the first error. */
export interface IndexFailure {
  readonly collection: string;
  readonly indexes: readonly string[];
  readonly error: unknown;
}

export interface DocumentStore {
  readonly kind: 'embedded' | 'mongodb';
  /** The collection for a spec; the same instance for the same name. Indexes are created at open. */
  collection<T extends StoredDocument>(spec: CollectionSpec<T>): Collection<T>;
  /**
   * Resolves once every collection opened so far has been through its first index pass. On MongoDB
   * an index that could not be built does not reject it (the collection serves without it while the
   * build is retried): `indexFailures()` lists those.
   */
  ready(): Promise<void>;
  /** MongoDB: the collections whose latest index pass failed, being retried. The embedded store has none. */
  indexFailures?(): readonly IndexFailure[];
  /** For health: `not_configured` for the embedded store (no MongoDB configured). */
  status(): StoreStatus;
  close(): Promise<void>;
}

/** Shared adapter options. */
export interface StoreOptions {
  /** Milliseconds since the epoch; TTL expiry is computed against it. Default `Date.now`. */
  clock?: () => number;
}

/** A unique-index violation, raised the same way by both adapters. */
export class DuplicateKeyError extends Error {
  readonly code = 'duplicate_key';
  constructor(
    readonly collection: string,
    readonly index: string,
    readonly fields: string[],
    readonly keyValue: Record<string, unknown> = {},
  ) {
    super(`Duplicate key in ${collection}: unique index ${index} (${fields.join(', ')})`);
    this.name = 'DuplicateKeyError';
  }
}

/**
 * The store refuses a document for what it holds (a value it cannot store, a document too large, a
 * failed validation): writing the same document again fails the same way. Both adapters raise it.
 */
export class DocumentRefusedError extends Error {
  readonly code = 'document_refused';
  constructor(
    readonly collection: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${collection} refused a document: ${reason}`, options);
    this.name = 'DocumentRefusedError';
  }
}

/** The store cannot be written now (closed, unreachable, timed out): the same write may succeed later. */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** MongoDB's default index name: `a_1_b_-1`. */
export function indexName(index: IndexSpec): string {
  return index.name ?? Object.entries(index.fields).map(([field, dir]) => `${field}_${dir}`).join('_');
}
