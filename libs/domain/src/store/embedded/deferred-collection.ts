import { assertDocumentId } from '../document-utils';
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
import { DocumentRefusedError } from '../types';
import type { EmbeddedCollection } from './embedded-collection';
import { serializeJournal } from './persistence';

/** What a deferred collection needs from its store. */
export interface DeferredHooks<T extends StoredDocument> {
  /** Reads the collection from disk, with `lines` (journal lines not yet on disk) on top. */
  load(lines: readonly string[]): EmbeddedCollection<T>;
  /** Schedules a write of the pending lines. */
  changed(): void;
  assertOpen(): void;
}

/**
 * A write-mostly collection (usage records) that is not read into memory until something reads
 * it. Until then an insert is serialized to a journal line at once and appended to the journal
 * on the next write; nothing of it stays in memory. The gateway alone only ever writes usage
 * records, so it never holds them; a process that reads them (the admin API) loads the collection
 * on the first read, and from then on it behaves as any other embedded collection.
 *
 * While unloaded, a duplicate `_id` cannot be checked against the documents on disk: inserts must
 * use fresh ids (usage records use the request id). A duplicate found at load time is dropped.
 */
export class DeferredCollection<T extends StoredDocument> implements Collection<T> {
  readonly name: string;
  private loaded: EmbeddedCollection<T> | null = null;
  /** Journal lines inserted while unloaded and not yet handed to a write. */
  private pending: string[] = [];
  /** Lines handed to the write in progress (on disk or about to be). */
  private writing: string[] = [];

  constructor(
    spec: CollectionSpec<T>,
    private readonly hooks: DeferredHooks<T>,
  ) {
    this.name = spec.name;
  }

  get isLoaded(): boolean {
    return this.loaded !== null;
  }

  /** Lines to append now; call `written()` once they are on disk. */
  takeLines(): string[] {
    this.writing = this.pending;
    this.pending = [];
    return this.writing;
  }

  written(): void {
    this.writing = [];
  }

  /** A failed write: its lines go back in front of the pending ones. */
  unwritten(): void {
    this.pending = this.writing.concat(this.pending);
    this.writing = [];
  }

  async insertOne(doc: T): Promise<T> {
    if (this.loaded) return this.loaded.insertOne(doc);
    this.append([doc]);
    return doc;
  }

  async insertMany(docs: T[]): Promise<T[]> {
    if (this.loaded) return this.loaded.insertMany(docs);
    this.append(docs);
    return docs;
  }

  /** Unloaded, every document is appended: a stored `_id` is dropped at load time (the first one wins). */
  async insertNew(docs: T[]): Promise<number> {
    if (this.loaded) return this.loaded.insertNew(docs);
    this.append(docs);
    return docs.length;
  }

  findOne(filter: Filter<T>, options?: FindOneOptions): Promise<T | null> {
    return this.collection().findOne(filter, options);
  }

  find(filter: Filter<T>, options?: FindOptions): Promise<T[]> {
    return this.collection().find(filter, options);
  }

  count(filter: Filter<T>): Promise<number> {
    return this.collection().count(filter);
  }

  updateOne(filter: Filter<T>, update: Update<T>, options?: UpdateOptions): Promise<UpdateResult> {
    return this.collection().updateOne(filter, update, options);
  }

  updateMany(filter: Filter<T>, update: Update<T>): Promise<UpdateResult> {
    return this.collection().updateMany(filter, update);
  }

  findOneAndUpdate(filter: Filter<T>, update: Update<T>, options?: FindOneAndUpdateOptions): Promise<T | null> {
    return this.collection().findOneAndUpdate(filter, update, options);
  }

  deleteOne(filter: Filter<T>): Promise<number> {
    return this.collection().deleteOne(filter);
  }

  deleteMany(filter: Filter<T>): Promise<number> {
    return this.collection().deleteMany(filter);
  }

  aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]> {
    return this.collection().aggregate<R>(pipeline);
  }

  /** The loaded collection, loading it (with the lines not yet on disk) on first use. */
  collection(): EmbeddedCollection<T> {
    this.hooks.assertOpen();
    // The lines stay pending: they are not on disk yet and are still appended by the next write.
    this.loaded ??= this.hooks.load([...this.writing, ...this.pending]);
    return this.loaded;
  }

  private append(docs: readonly T[]): void {
    this.hooks.assertOpen();
    for (const doc of docs) assertDocumentId(this.name, doc);
    let lines: string;
    try {
      lines = serializeJournal(docs);
    } catch (error) {
      // An invalid Date (no ISO form), a BigInt: nothing of the batch is appended.
      throw new DocumentRefusedError(this.name, (error as Error).message, { cause: error });
    }
    this.pending.push(lines);
    this.hooks.changed();
  }
}
