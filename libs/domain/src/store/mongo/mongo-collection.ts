import type { Model, PipelineStage as MongoosePipelineStage, QueryFilter, UpdateQuery } from 'mongoose';
import { assertDocumentId, buildUpsertDocument, cloneDocument, normalizeUpdate, stripUndefined, ttlExpired, TtlRule, ttlRuleOf, ttlVisibility } from '../document-utils';
import { DuplicateKeyError } from '../types';
import type {
  Collection,
  CollectionSpec,
  Filter,
  FindOneAndUpdateOptions,
  FindOneOptions,
  FindOptions,
  PipelineStage,
  StoredDocument,
  Update,
  UpdateOptions,
  UpdateResult,
} from '../types';
import { splitInsertFailure, toDuplicateKeyError, toInsertRefusal } from './mongo-errors';
import { toMongoFilter, toMongoPipeline } from './mongo-filter';

/** The raw shape every model stores: a string `_id` and anything else (`strict: false`). */
export type RawDocument = { _id: string } & Record<string, unknown>;
type RawFilter = QueryFilter<RawDocument>;
type RawUpdate = UpdateQuery<RawDocument>;

/**
 * A collection backed by one mongoose model. Documents are read lean (plain objects), queries and
 * updates are passed in MongoDB syntax. TTL expiry is also applied on read (MongoDB's TTL monitor
 * removes expired documents only once a minute), so expired documents are invisible at once, as in
 * the embedded store; and an expired document that still holds a unique key is purged and the
 * write retried once.
 */
export class MongoCollection<T extends StoredDocument> implements Collection<T> {
  readonly name: string;
  private readonly ttl: TtlRule | null;

  constructor(
    private readonly spec: CollectionSpec<T>,
    private readonly model: Model<RawDocument>,
    private readonly indexesReady: Promise<void>,
    private readonly clock: () => number,
  ) {
    this.name = spec.name;
    this.ttl = ttlRuleOf(spec);
  }

  async insertOne(doc: T): Promise<T> {
    const [inserted] = await this.insertMany([doc]);
    return inserted;
  }

  async insertMany(docs: T[]): Promise<T[]> {
    await this.indexesReady;
    const prepared = docs.map((doc) => {
      assertDocumentId(this.name, doc);
      return stripUndefined(cloneDocument(doc));
    });
    if (!prepared.length) return [];
    let inserted = 0;
    await this.withDuplicateRetry(async () => {
      try {
        await this.model.insertMany(prepared.slice(inserted) as RawDocument[], { ordered: true, lean: true });
        inserted = prepared.length;
      } catch (error) {
        // Ordered: every document before the failing one is in; a retry continues from there.
        const failedAt = (error as { writeErrors?: { index?: number }[] }).writeErrors?.[0]?.index;
        if (typeof failedAt === 'number') inserted += failedAt;
        throw error;
      }
    });
    return prepared;
  }

  /**
   * Unordered, skipping the documents whose `_id` is taken (E11000 on `_id_` only). A taken `_id`
   * may belong to an expired document MongoDB's TTL monitor has not removed yet: when a purge
   * removes any, those documents are tried once more, as the embedded store would insert them.
   */
  async insertNew(docs: T[]): Promise<number> {
    await this.indexesReady;
    let pending = docs.map((doc) => {
      assertDocumentId(this.name, doc);
      return stripUndefined(cloneDocument(doc));
    });
    let inserted = 0;
    for (let attempt = 0; pending.length; attempt += 1) {
      try {
        await this.model.insertMany(pending as RawDocument[], { ordered: false, lean: true });
        return inserted + pending.length;
      } catch (error) {
        const { takenIds, failure } = splitInsertFailure(this.name, this.spec.indexes, error);
        if (failure) throw toInsertRefusal(this.name, failure);
        inserted += pending.length - takenIds.length;
        if (attempt > 0 || !this.ttl || (await this.purgeExpired()) === 0) return inserted;
        pending = takenIds.map((index) => pending[index]);
      }
    }
    return inserted;
  }

  async findOne(filter: Filter<T>, options: FindOneOptions = {}): Promise<T | null> {
    await this.indexesReady;
    const query = this.model.findOne(this.visible(filter), options.projection ?? null);
    if (options.sort) query.sort(options.sort);
    return (await query.lean().exec()) as T | null;
  }

  async find(filter: Filter<T>, options: FindOptions = {}): Promise<T[]> {
    await this.indexesReady;
    const query = this.model.find(this.visible(filter), options.projection ?? null);
    if (options.sort) query.sort(options.sort);
    if (options.skip) query.skip(options.skip);
    if (options.limit) query.limit(options.limit);
    return (await query.lean().exec()) as unknown as T[];
  }

  async count(filter: Filter<T>): Promise<number> {
    await this.indexesReady;
    return this.model.countDocuments(this.visible(filter)).exec();
  }

  async updateOne(filter: Filter<T>, update: Update<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    await this.indexesReady;
    const normalized = normalizeUpdate(update);
    if (!normalized) return this.emptyUpdate(filter, options.upsert ?? false);
    if (options.upsert) buildUpsertDocument(this.name, filter, normalized);
    const result = await this.withDuplicateRetry(
      () => this.model.updateOne(this.visible(filter), normalized as RawUpdate, { upsert: options.upsert ?? false, strict: false }).exec(),
      options.upsert ?? false,
    );
    const upserted = result.upsertedCount > 0 && result.upsertedId != null;
    return {
      matched: result.matchedCount,
      modified: upserted ? 0 : result.modifiedCount,
      ...(upserted ? { upsertedId: String(result.upsertedId) } : {}),
    };
  }

  async updateMany(filter: Filter<T>, update: Update<T>): Promise<UpdateResult> {
    await this.indexesReady;
    const normalized = normalizeUpdate(update);
    if (!normalized) return { matched: await this.count(filter), modified: 0 };
    const result = await this.withDuplicateRetry(() =>
      this.model.updateMany(this.visible(filter), normalized as RawUpdate, { strict: false }).exec(),
    );
    return { matched: result.matchedCount, modified: result.modifiedCount };
  }

  async findOneAndUpdate(
    filter: Filter<T>,
    update: Update<T>,
    options: FindOneAndUpdateOptions = {},
  ): Promise<T | null> {
    await this.indexesReady;
    const normalized = normalizeUpdate(update);
    const returnDocument = options.returnDocument ?? 'after';
    if (!normalized) {
      const found = await this.findOne(filter, { sort: options.sort });
      if (found || !options.upsert) return found;
      const upserted = await this.insertOrFind(filter);
      if (!upserted.inserted) return upserted.doc;
      return returnDocument === 'before' ? null : upserted.doc;
    }
    if (options.upsert) buildUpsertDocument(this.name, filter, normalized);
    const result = await this.withDuplicateRetry(() =>
      this.model
        .findOneAndUpdate(this.visible(filter), normalized as RawUpdate, {
          returnDocument,
          upsert: options.upsert ?? false,
          ...(options.sort ? { sort: options.sort } : {}),
          strict: false,
          lean: true,
        })
        .exec(),
      options.upsert ?? false,
    );
    return (result ?? null) as T | null;
  }

  async deleteOne(filter: Filter<T>): Promise<number> {
    await this.indexesReady;
    const result = await this.model.deleteOne(this.visible(filter)).exec();
    return result.deletedCount;
  }

  async deleteMany(filter: Filter<T>): Promise<number> {
    await this.indexesReady;
    const result = await this.model.deleteMany(this.visible(filter)).exec();
    return result.deletedCount;
  }

  async aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]> {
    await this.indexesReady;
    const condition = this.visibility();
    const stages = toMongoPipeline(condition ? [{ $match: condition }, ...pipeline] : pipeline) as unknown as MongoosePipelineStage[];
    return this.model.aggregate<R>(stages).exec();
  }

  // ---- internals ----

  /** The condition that hides expired documents, or null when the collection has no TTL. */
  private visibility(): Record<string, unknown> | null {
    return this.ttl ? ttlVisibility(this.ttl, this.clock()) : null;
  }

  /** The filter as sent: `undefined` conditions as null (see toMongoFilter), expired documents hidden. */
  private visible(filter: Filter<T>): RawFilter {
    const condition = this.visibility();
    const sent = toMongoFilter(filter);
    return (condition ? { $and: [sent, condition] } : sent) as RawFilter;
  }

  /**
   * Removes documents already past their TTL (what MongoDB's TTL monitor will do within a minute).
   * A range on the TTL field, which its index serves: it runs on every duplicate key of a TTL
   * collection (each idempotent replay), where a `$nor` of the visibility would scan the collection.
   */
  private async purgeExpired(): Promise<number> {
    if (!this.ttl) return 0;
    const result = await this.model.deleteMany(ttlExpired(this.ttl, this.clock()) as RawFilter).exec();
    return result.deletedCount;
  }

  /**
   * Retries a write once on a duplicate key when expired documents were purged, and always for an
   * upsert: two racing upserts both miss and both insert, and the loser's retry now matches the
   * winner's document. MongoDB retries such an upsert itself only when the filter is an equality on
   * the unique key, which the TTL condition (`$and` with a `$not`) of `visible` never is.
   */
  private async withDuplicateRetry<R>(operation: () => Promise<R>, upsert = false): Promise<R> {
    try {
      return await operation();
    } catch (error) {
      const duplicate = toDuplicateKeyError(this.name, this.spec.indexes, error);
      if (!duplicate) throw error;
      const purged = this.ttl ? await this.purgeExpired() : 0;
      if (purged === 0 && !upsert) throw duplicate;
      try {
        return await operation();
      } catch (retryError) {
        throw toDuplicateKeyError(this.name, this.spec.indexes, retryError) ?? retryError;
      }
    }
  }

  /** An update with nothing to change: report the match, and insert the filter's fields on upsert. */
  private async emptyUpdate(filter: Filter<T>, upsert: boolean): Promise<UpdateResult> {
    const found = await this.findOne(filter, { projection: { _id: 1 } });
    if (found) return { matched: 1, modified: 0 };
    if (!upsert) return { matched: 0, modified: 0 };
    const upserted = await this.insertOrFind(filter);
    if (!upserted.inserted) return { matched: 1, modified: 0 };
    return { matched: 0, modified: 0, upsertedId: upserted.doc._id };
  }

  /** The insert of an upsert with nothing to update; a racing upsert that inserted first is found instead. */
  private async insertOrFind(filter: Filter<T>): Promise<{ doc: T; inserted: boolean }> {
    try {
      return { doc: await this.insertOne(buildUpsertDocument(this.name, filter, {})), inserted: true };
    } catch (error) {
      const found = error instanceof DuplicateKeyError ? await this.findOne(filter) : null;
      if (!found) throw error;
      return { doc: found, inserted: false };
    }
  }
}
