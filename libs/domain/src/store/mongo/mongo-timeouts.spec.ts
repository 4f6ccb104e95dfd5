/**
 * The operation timeout of the MongoDB adapter, checked without a server: what each operation hands
 * to the driver (mongoose's `buffer` event carries the arguments of the driver call), and the
 * connection options as the driver parses them.
 */
import mongoose from 'mongoose';
import { configSchema } from '@svc/platform';
import { silentLogger } from '../../testing/stores';
import { defineCollection } from '../types';
import { connectionOptions, DEFAULT_OPERATION_TIMEOUT_MS, MongoDocumentStore } from './mongo-store';

type Doc = { _id: string; org_id: string; expires_at?: Date };

const SPEC = defineCollection<Doc>('timed', [
  { fields: { expires_at: 1 }, expireAfterSeconds: 0, comment: 'TTL' },
  { fields: { org_id: 1 }, comment: 'by org' },
]);

/** The options object of a driver call: its last plain-object argument. */
const optionsOf = (args: unknown[]) => [...args].reverse().find((arg) => arg && typeof arg === 'object' && !Array.isArray(arg)) as Record<string, unknown> | undefined;

describe('MongoDB operation timeout', () => {
  it('sends maxTimeMS with every query, update, delete and aggregation of a collection', async () => {
    const connection = mongoose.createConnection();
    (connection as unknown as { config: Record<string, unknown> }).config.bufferTimeoutMS = 20;
    const calls: { method: string; args: unknown[] }[] = [];
    connection.on('buffer', (event: { method: string; args: ArrayLike<unknown> }) => calls.push({ method: event.method, args: Array.from(event.args) }));
    const store = new MongoDocumentStore(connection, silentLogger(), { operationTimeoutMS: 1_234, indexRetry: { firstDelayMs: 60_000 } });
    try {
      const collection = store.collection(SPEC);
      await store.ready();
      calls.length = 0;
      const filter = { org_id: 'org_a' };
      const operations = [
        collection.find(filter),
        collection.findOne(filter),
        collection.count(filter),
        collection.updateOne(filter, { $set: { org_id: 'org_b' } }),
        collection.updateMany(filter, { $set: { org_id: 'org_b' } }),
        collection.findOneAndUpdate(filter, { $set: { org_id: 'org_b' } }),
        collection.deleteOne(filter),
        collection.deleteMany(filter),
        collection.aggregate([{ $match: filter }]),
      ];
      for (const result of await Promise.allSettled(operations)) {
        expect(result.status === 'rejected' && String(result.reason)).toMatch('buffering timed out');
      }
      expect(calls.map((call) => call.method).sort()).toEqual(
        ['find', 'findOne', 'countDocuments', 'updateOne', 'updateMany', 'findOneAndUpdate', 'deleteOne', 'deleteMany', 'aggregate'].sort(),
      );
      for (const call of calls) expect({ method: call.method, maxTimeMS: optionsOf(call.args)?.maxTimeMS }).toEqual({ method: call.method, maxTimeMS: 1_234 });
    } finally {
      await store.close();
    }
  });

  it('keeps a timeout a query sets itself', async () => {
    const connection = mongoose.createConnection();
    (connection as unknown as { config: Record<string, unknown> }).config.bufferTimeoutMS = 20;
    const calls: unknown[][] = [];
    connection.on('buffer', (event: { method: string; args: ArrayLike<unknown> }) => calls.push(Array.from(event.args)));
    const store = new MongoDocumentStore(connection, silentLogger(), { operationTimeoutMS: 1_234, indexRetry: { firstDelayMs: 60_000 } });
    try {
      const collection = store.collection(SPEC) as unknown as { model: mongoose.Model<Doc> };
      await store.ready();
      calls.length = 0;
      await expect(collection.model.find({}).maxTimeMS(50).exec()).rejects.toThrow('buffering timed out');
      expect(optionsOf(calls[0])?.maxTimeMS).toBe(50);
    } finally {
      await store.close();
    }
  });

  /** The options mongoose hands to the driver (autoIndex, autoCreate and bufferTimeoutMS are mongoose's own). */
  const driverOptions = (options: Parameters<typeof connectionOptions>[0]) => {
    const { autoIndex: _autoIndex, autoCreate: _autoCreate, bufferTimeoutMS: _bufferTimeoutMS, ...driver } = connectionOptions(options);
    return driver;
  };

  it('holds an operation no longer than MONGODB_OPERATION_TIMEOUT_MS while no server answers (not mongoose\'s own 10 s)', async () => {
    const connection = mongoose.createConnection();
    // Nothing listens on port 1: the connection stays "connecting" (server selection) and mongoose holds operations.
    const opening = connection.openUri('mongodb://127.0.0.1:1/svc_test', connectionOptions({ operationTimeoutMS: 300, serverSelectionTimeoutMS: 1_500 })).catch(() => undefined);
    const store = new MongoDocumentStore(connection, silentLogger(), { operationTimeoutMS: 300, indexRetry: { firstDelayMs: 60_000 } });
    try {
      const collection = store.collection(SPEC);
      await store.ready();
      const started = Date.now();
      await expect(collection.findOne({ org_id: 'org_a' })).rejects.toThrow('buffering timed out after 300ms');
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await store.close();
      await opening;
    }
  });

  it('bounds the wait on a socket a little beyond maxTimeMS, as the driver parses the options', async () => {
    const client = new mongoose.mongo.MongoClient('mongodb://127.0.0.1:1/svc_test', driverOptions({ operationTimeoutMS: 2_000 }));
    expect(client.options.socketTimeoutMS).toBe(7_000);
    expect(client.options.serverSelectionTimeoutMS).toBe(5_000);
    const fallback = new mongoose.mongo.MongoClient('mongodb://127.0.0.1:1/svc_test', driverOptions({}));
    expect(fallback.options.socketTimeoutMS).toBe(DEFAULT_OPERATION_TIMEOUT_MS + 5_000);
    await Promise.all([client.close(), fallback.close()]);
  });

  it('is configured by MONGODB_OPERATION_TIMEOUT_MS, 10 s by default, bad values refused', () => {
    expect(configSchema.parse({}).MONGODB_OPERATION_TIMEOUT_MS).toBe(DEFAULT_OPERATION_TIMEOUT_MS);
    expect(configSchema.parse({ MONGODB_OPERATION_TIMEOUT_MS: '2500' }).MONGODB_OPERATION_TIMEOUT_MS).toBe(2_500);
    for (const bad of ['0', '-1', 'soon', '1.5']) expect(configSchema.safeParse({ MONGODB_OPERATION_TIMEOUT_MS: bad }).success).toBe(false);
  });
});
