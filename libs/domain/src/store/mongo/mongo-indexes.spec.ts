/**
 * Index maintenance of the MongoDB adapter, without a server: the plan built from the declared
 * indexes, a pass run against a recording collection, and a store whose first pass fails (no
 * server answers) still serving its collection's operations.
 */
import mongoose from 'mongoose';
import { silentLogger } from '../../testing/stores';
import { WEBHOOKS } from '../../webhooks/webhook.entity';
import { defineCollection } from '../types';
import { applyIndexPlan, IndexOperations, indexPlan, maintainIndexes, OBSOLETE_INDEXES } from './mongo-indexes';
import { MongoDocumentStore, schemaFor } from './mongo-store';

type Call = ['createIndex', Record<string, unknown>, Record<string, unknown>] | ['dropIndex', string];

/** A collection that records what it is asked and fails the calls `fail` picks. */
function recorder(fail: (call: Call) => unknown = () => undefined): IndexOperations & { calls: Call[] } {
  const calls: Call[] = [];
  const run = async (call: Call) => {
    calls.push(call);
    const error = fail(call);
    if (error) throw error;
  };
  return { calls, createIndex: (fields, options) => run(['createIndex', fields, options]), dropIndex: (name) => run(['dropIndex', name]) };
}

const serverError = (code: number, message: string) => Object.assign(new Error(message), { name: 'MongoServerError', code });
const declaredOf = (spec: Parameters<typeof schemaFor>[0]) => schemaFor(spec).indexes() as [Record<string, unknown>, Record<string, unknown>][];

describe('indexPlan', () => {
  it('creates every declared index of webhooks and drops only org_url_unique, which org_url_hash_unique replaced', () => {
    const plan = indexPlan('webhooks', declaredOf(WEBHOOKS));
    expect(plan.create.map((index) => index.name)).toEqual(WEBHOOKS.indexes.map((index) => index.name ?? Object.entries(index.fields).map(([f, d]) => `${f}_${d}`).join('_')));
    expect(plan.create.find((index) => index.name === 'org_url_hash_unique')?.options).toMatchObject({ unique: true, partialFilterExpression: { url_hash: { $exists: true } } });
    expect(plan.drop.map((index) => index.name)).toEqual(['org_url_unique']);
  });

  it('never drops a declared index, the _id index, or an obsolete one whose replacement is not declared', () => {
    const spec = defineCollection<{ _id: string }>('things', [
      { fields: { org_id: 1, a: 1 }, unique: true, name: 'org_a_unique', comment: 'current' },
      { fields: { org_id: 1, b: 1 }, name: 'org_b', comment: 'declared again after being listed obsolete' },
    ]);
    const plan = indexPlan('things', declaredOf(spec), [
      { name: 'org_b', replacedBy: 'org_a_unique', since: 'test' },
      { name: '_id_', replacedBy: 'org_a_unique', since: 'test' },
      { name: 'old_c', replacedBy: 'not_declared', since: 'test' },
      { name: 'old_a', replacedBy: 'org_a_unique', since: 'test' },
    ]);
    expect(plan.create.map((index) => index.name)).toEqual(['org_a_unique', 'org_b']);
    expect(plan.drop.map((index) => index.name)).toEqual(['old_a']);
  });

  it('lists obsolete indexes only under collections whose replacement is declared', () => {
    for (const [collection, obsolete] of Object.entries(OBSOLETE_INDEXES)) {
      expect(collection).toBe(WEBHOOKS.name);
      expect(indexPlan(collection, declaredOf(WEBHOOKS)).drop).toEqual(obsolete);
    }
  });
});

describe('applyIndexPlan', () => {
  const plan = indexPlan('webhooks', declaredOf(WEBHOOKS));

  it('creates each declared index with its options, then drops the obsolete one; never any other drop', async () => {
    const collection = recorder();
    const outcome = await applyIndexPlan(collection, plan);
    expect(collection.calls).toEqual([...declaredOf(WEBHOOKS).map(([fields, options]) => ['createIndex', fields, options]), ['dropIndex', 'org_url_unique']]);
    expect(outcome).toEqual({ created: plan.create.map((index) => index.name), dropped: ['org_url_unique'], failed: [] });
  });

  it('counts "index not found" (a database that never had it, or a replica that dropped it first) as done', async () => {
    const collection = recorder((call) => (call[0] === 'dropIndex' ? serverError(27, 'index not found with name [org_url_unique]') : undefined));
    expect(await applyIndexPlan(collection, plan)).toMatchObject({ dropped: [], failed: [] });
  });

  it('keeps the obsolete index while its replacement could not be built, and builds the other indexes', async () => {
    const duplicates = serverError(11000, 'E11000 duplicate key error collection: db.webhooks index: org_url_hash_unique');
    const collection = recorder((call) => (call[0] === 'createIndex' && call[2].name === 'org_url_hash_unique' ? duplicates : undefined));
    const outcome = await applyIndexPlan(collection, plan);
    expect(collection.calls.filter((call) => call[0] === 'dropIndex')).toEqual([]);
    expect(collection.calls.filter((call) => call[0] === 'createIndex')).toHaveLength(plan.create.length);
    expect(outcome.failed).toEqual([{ name: 'org_url_hash_unique', error: duplicates }]);
  });

  it('reports a drop that failed otherwise, to be retried', async () => {
    const collection = recorder((call) => (call[0] === 'dropIndex' ? serverError(13, 'not authorized') : undefined));
    expect((await applyIndexPlan(collection, plan)).failed.map((failure) => failure.name)).toEqual(['org_url_unique']);
  });
});

describe('maintainIndexes', () => {
  it('settles its first pass when an index fails, logs it and retries until it is built', async () => {
    let failures = 2;
    const collection = recorder((call) => (call[0] === 'createIndex' && call[2].name === 'org_url_hash_unique' && failures-- > 0 ? serverError(11000, 'E11000') : undefined));
    const logged: string[] = [];
    const logger = Object.assign(Object.create(silentLogger()) as ReturnType<typeof silentLogger>, {
      error: (_fields: unknown, message: string) => logged.push(message),
      info: (_fields: unknown, message: string) => logged.push(message),
    });
    const maintenance = maintainIndexes(collection, indexPlan('webhooks', declaredOf(WEBHOOKS)), logger, { firstDelayMs: 10, maxDelayMs: 20 });
    await expect(maintenance.firstPass).resolves.toBeUndefined();
    expect(logged).toEqual(['could not create the indexes of a collection']);
    expect(maintenance.failures().map((failure) => failure.name)).toEqual(['org_url_hash_unique']);
    for (let waited = 0; !logged.includes('the indexes of a collection are built') && waited < 2_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    maintenance.stop();
    expect(logged).toEqual(['could not create the indexes of a collection', 'could not create the indexes of a collection', 'dropped obsolete indexes', 'the indexes of a collection are built']);
    expect(maintenance.failures()).toEqual([]);
    expect(collection.calls.filter((call) => call[0] === 'dropIndex')).toEqual([['dropIndex', 'org_url_unique']]);
  });
});

describe('MongoDocumentStore indexes, as sent to a connection with no server', () => {
  it('asks only for createIndex of the declared indexes, and the collection serves once the first pass failed', async () => {
    const connection = mongoose.createConnection();
    const buffered: { method: string; args: unknown[] }[] = [];
    connection.on('buffer', (event: { method: string; args: ArrayLike<unknown> }) => buffered.push({ method: event.method, args: Array.from(event.args) }));
    (connection as unknown as { config: Record<string, unknown> }).config.bufferTimeoutMS = 30;
    const store = new MongoDocumentStore(connection, silentLogger(), { indexRetry: { firstDelayMs: 60_000 } });
    try {
      const webhooks = store.collection(WEBHOOKS);
      await store.ready();
      expect(buffered.map((call) => call.method)).toEqual(WEBHOOKS.indexes.map(() => 'createIndex'));
      expect(buffered.map((call) => (call.args[1] as { name: string }).name)).toContain('org_url_hash_unique');
      // Every index timed out (no server): the collection still sends its queries, rather than refusing them.
      buffered.length = 0;
      await expect(webhooks.find({ org_id: 'org_a' })).rejects.toThrow('buffering timed out');
      expect(buffered.map((call) => call.method)).toEqual(['find']);
    } finally {
      await store.close();
    }
  });
});
