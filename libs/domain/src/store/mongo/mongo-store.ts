import mongoose, { ConnectOptions, Connection, Schema } from 'mongoose';
import type { Logger } from '@svc/platform';
import {
  Collection,
  CollectionSpec,
  DocumentStore,
  IndexFailure,
  indexName,
  StoreOptions,
  StoreStatus,
  StoredDocument,
} from '../types';
import { MongoCollection, RawDocument } from './mongo-collection';
import { IndexMaintenance, IndexOperations, IndexRetry, indexPlan, maintainIndexes } from './mongo-indexes';

export interface MongoStoreOptions extends StoreOptions {
  /** Database name; default: the one in the URI. */
  dbName?: string;
  /** How long to wait for a server at open and per operation (default 5 s). */
  serverSelectionTimeoutMS?: number;
  /**
   * Longest a query, update, delete or aggregation may run (MONGODB_OPERATION_TIMEOUT_MS, default
   * 10 s): sent as `maxTimeMS`; the socket gives up on a silent server a little later.
   */
  operationTimeoutMS?: number;
  /** Retry delays when an index cannot be built (tests shorten them). */
  indexRetry?: IndexRetry;
}

export const DEFAULT_OPERATION_TIMEOUT_MS = 10_000;

/** How much longer than `maxTimeMS` the client waits on a socket, so the server's own timeout error normally comes first. */
export const SOCKET_TIMEOUT_MARGIN_MS = 5_000;

/** The operations whose server-side time is bounded by `maxTimeMS` (schema query middleware). */
const BOUNDED_QUERIES = ['find', 'findOne', 'countDocuments', 'updateOne', 'updateMany', 'findOneAndUpdate', 'deleteOne', 'deleteMany'] as const;

export interface SchemaOptions {
  /** Sets `maxTimeMS` on every query and aggregation that does not set its own. */
  operationTimeoutMS?: number;
}

/** A mongoose schema for a spec: string `_id`, anything else allowed, the spec's indexes declared. */
export function schemaFor(spec: CollectionSpec<StoredDocument>, options: SchemaOptions = {}): Schema<RawDocument> {
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
  const maxTimeMS = options.operationTimeoutMS;
  if (maxTimeMS) {
    for (const op of BOUNDED_QUERIES) {
      schema.pre(op, function (this: mongoose.Query<unknown, RawDocument>) {
        if (this.getOptions().maxTimeMS === undefined) this.setOptions({ maxTimeMS });
      });
    }
    schema.pre('aggregate', function (this: mongoose.Aggregate<unknown>) {
      if (this.options.maxTimeMS === undefined) this.option({ maxTimeMS });
    });
  }
  return schema;
}

/** The options of the store's connection (`bufferTimeoutMS` is mongoose's own, missing from its ConnectOptions type). */
export function connectionOptions(options: MongoStoreOptions): ConnectOptions & { bufferTimeoutMS: number } {
  return {
    ...(options.dbName ? { dbName: options.dbName } : {}),
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 5_000,
    // The driver ignores `timeoutMS` (deprecated, no effect in mongodb 7): queries carry maxTimeMS
    // (schemaFor) and the socket bounds the wait for any reply, inserts and index builds included.
    socketTimeoutMS: (options.operationTimeoutMS ?? DEFAULT_OPERATION_TIMEOUT_MS) + SOCKET_TIMEOUT_MARGIN_MS,
    // While the connection is down mongoose holds each operation, for 10 s of its own by default:
    // held no longer than an operation may run, so MONGODB_OPERATION_TIMEOUT_MS bounds that wait too.
    bufferTimeoutMS: options.operationTimeoutMS ?? DEFAULT_OPERATION_TIMEOUT_MS,
    ignoreUndefined: true,
    autoIndex: false,
    autoCreate: false,
  };
}

/**
 * The MongoDB adapter: one injected connection (no global mongoose models), one model per
 * collection spec. Opening a collection creates its declared indexes and drops the obsolete ones
 * listed in OBSOLETE_INDEXES (mongo-indexes.ts), never any other; a failure is logged and retried.
 */
export class MongoDocumentStore implements DocumentStore {
  readonly kind = 'mongodb' as const;
  private readonly collections = new Map<string, Collection<StoredDocument>>();
  private readonly pending: Promise<void>[] = [];
  private readonly maintenance: { collection: string; maintenance: IndexMaintenance }[] = [];
  private readonly clock: () => number;
  private readonly operationTimeoutMS: number;
  private readonly indexRetry: IndexRetry;

  constructor(
    readonly connection: Connection,
    private readonly logger: Logger,
    options: MongoStoreOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.operationTimeoutMS = options.operationTimeoutMS ?? DEFAULT_OPERATION_TIMEOUT_MS;
    this.indexRetry = options.indexRetry ?? {};
  }

  static async open(uri: string, logger: Logger, options: MongoStoreOptions = {}): Promise<MongoDocumentStore> {
    const connection = mongoose.createConnection(uri, connectionOptions(options));
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
    const schema = schemaFor(spec, { operationTimeoutMS: this.operationTimeoutMS });
    const model = this.connection.model<RawDocument>(spec.name, schema, spec.name);
    const plan = indexPlan(spec.name, schema.indexes() as [Record<string, unknown>, Record<string, unknown>][]);
    // Operations wait for the first pass only; one that failed is retried in the background.
    const maintenance = maintainIndexes(model.collection as unknown as IndexOperations, plan, this.logger, this.indexRetry);
    this.maintenance.push({ collection: spec.name, maintenance });
    this.pending.push(maintenance.firstPass);
    const collection = new MongoCollection<T>(spec, model, maintenance.firstPass, this.clock);
    this.collections.set(spec.name, collection as unknown as Collection<StoredDocument>);
    return collection;
  }

  async ready(): Promise<void> {
    await Promise.all(this.pending);
  }

  indexFailures(): IndexFailure[] {
    return this.maintenance.flatMap(({ collection, maintenance }) => {
      const failed = maintenance.failures();
      return failed.length ? [{ collection, indexes: failed.map((f) => f.name), error: failed[0].error }] : [];
    });
  }

  status(): StoreStatus {
    return this.connection.readyState === mongoose.ConnectionStates.connected ? 'connected' : 'disconnected';
  }

  /** Drops the whole database (tests only). */
  async dropDatabase(): Promise<void> {
    await this.connection.dropDatabase();
  }

  async close(): Promise<void> {
    for (const { maintenance } of this.maintenance) maintenance.stop();
    await this.connection.close();
  }
}
