import mongoose, { Connection, Schema } from 'mongoose';
import type { Logger } from '@svc/platform';
import {
  Collection,
  CollectionSpec,
  DocumentStore,
  indexName,
  StoreOptions,
  StoreStatus,
  StoredDocument,
} from '../types';
import { MongoCollection, RawDocument } from './mongo-collection';

export interface MongoStoreOptions extends StoreOptions {
  /** Database name; default: the one in the URI. */
  dbName?: string;
  /** How long to wait for a server at open and per operation (default 5 s). */
  serverSelectionTimeoutMS?: number;
}

/** A mongoose schema for a spec: string `_id`, anything else allowed, the spec's indexes declared. */
export function schemaFor(spec: CollectionSpec<StoredDocument>): Schema<RawDocument> {
  const schema = new Schema<RawDocument>(
    { _id: { type: String, required: true } },
    {
      collection: spec.name,
      strict: false,
      strictQuery: false,
      versionKey: false,
      id: false,
      minimize: false,
      autoIndex: false,
      autoCreate: false,
    },
  );
  for (const index of spec.indexes) {
    schema.index(index.fields, {
      name: indexName(index),
      ...(index.unique ? { unique: true } : {}),
      ...(index.expireAfterSeconds !== undefined ? { expireAfterSeconds: index.expireAfterSeconds } : {}),
      ...(index.partialFilterExpression ? { partialFilterExpression: index.partialFilterExpression } : {}),
    });
  }
  return schema;
}

/**
 * The MongoDB adapter: one injected connection (no global mongoose models), one model per
 * collection spec, indexes synced (created, and stale ones dropped) when a collection is opened.
 */
export class MongoDocumentStore implements DocumentStore {
  readonly kind = 'mongodb' as const;
  private readonly collections = new Map<string, Collection<StoredDocument>>();
  private readonly pending: Promise<void>[] = [];
  private readonly clock: () => number;

  constructor(
    readonly connection: Connection,
    private readonly logger: Logger,
    options: StoreOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
  }

  static async open(uri: string, logger: Logger, options: MongoStoreOptions = {}): Promise<MongoDocumentStore> {
    const connection = mongoose.createConnection(uri, {
      ...(options.dbName ? { dbName: options.dbName } : {}),
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 5_000,
      ignoreUndefined: true,
      autoIndex: false,
      autoCreate: false,
    });
    // Without a listener an 'error' event would crash the process; status() reports the state.
    connection.on('error', (error: unknown) => logger.error({ err: error }, 'mongodb connection error'));
    connection.on('disconnected', () => logger.warn('mongodb disconnected'));
    connection.on('reconnected', () => logger.info('mongodb reconnected'));
    try {
      await connection.asPromise();
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
    logger.info({ db: connection.name }, 'mongodb connected');
    return new MongoDocumentStore(connection, logger, options);
  }

  collection<T extends StoredDocument>(spec: CollectionSpec<T>): Collection<T> {
    const existing = this.collections.get(spec.name);
    if (existing) return existing as unknown as Collection<T>;
    const model = this.connection.model<RawDocument>(spec.name, schemaFor(spec), spec.name);
    const indexesReady = model.syncIndexes().then(
      (dropped) => {
        if (dropped.length) this.logger.info({ collection: spec.name, dropped }, 'dropped indexes no longer declared');
      },
      (error: unknown) => {
        this.logger.error({ err: error, collection: spec.name }, 'could not create the indexes of a collection');
        throw error;
      },
    );
    // Failures surface on the collection's operations and in ready(); never as an unhandled rejection.
    indexesReady.catch(() => undefined);
    this.pending.push(indexesReady);
    const collection = new MongoCollection<T>(spec, model, indexesReady, this.clock);
    this.collections.set(spec.name, collection as unknown as Collection<StoredDocument>);
    return collection;
  }

  async ready(): Promise<void> {
    await Promise.all(this.pending);
  }

  status(): StoreStatus {
    return this.connection.readyState === mongoose.ConnectionStates.connected ? 'connected' : 'disconnected';
  }

  /** Drops the whole database (tests only). */
  async dropDatabase(): Promise<void> {
    await this.connection.dropDatabase();
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
