/**
 * What the MongoDB adapter sends, checked without a server: mongoose middleware records the filter
 * of each operation and stops it before the driver would wait for a connection. The connection
 * drops `undefined` values (`ignoreUndefined`), which is simulated with the driver's own BSON.
 */
import { Query } from 'mingo';
import mongoose, { Schema } from 'mongoose';
import { TtlRule, ttlExpired, ttlRuleOf, ttlVisibility } from '../document-utils';
import { defineCollection } from '../types';
import { MongoCollection, RawDocument } from './mongo-collection';
import { toMongoFilter, toMongoPipeline } from './mongo-filter';
import { schemaFor } from './mongo-store';

type Doc = { _id: string; org_id: string; team_id?: string | null; expires_at?: Date };

const SPEC = defineCollection<Doc>('records', [
  { fields: { expires_at: 1 }, expireAfterSeconds: 0, comment: 'TTL' },
  { fields: { org_id: 1, key: 1 }, unique: true, name: 'org_key_unique', comment: 'one per key' },
]);

/** The filter as the server receives it: BSON-encoded with `ignoreUndefined`, like the connection does. */
function onTheWire<F>(filter: F): F {
  const { BSON } = mongoose.mongo;
  return BSON.deserialize(BSON.serialize(filter as Record<string, unknown>, { ignoreUndefined: true })) as F;
}

const DOCS: Doc[] = [
  { _id: 'a', org_id: 'org_a', team_id: 'team_1' },
  { _id: 'b', org_id: 'org_a', team_id: null },
  { _id: 'c', org_id: 'org_a' },
  { _id: 'd', org_id: 'org_b', team_id: 'team_1' },
];

/** The ids a filter selects, by MongoDB's query semantics (mingo, which the embedded store runs). */
const selected = (filter: Record<string, unknown>) => DOCS.filter((doc) => new Query(filter).test(doc)).map((doc) => doc._id);

describe('toMongoFilter', () => {
  it.each([
    ['an equality', { org_id: 'org_a', team_id: undefined }, ['b', 'c']],
    ['$eq', { org_id: 'org_a', team_id: { $eq: undefined } }, ['b', 'c']],
    ['$ne', { org_id: 'org_a', team_id: { $ne: undefined } }, ['a']],
    ['$not', { org_id: 'org_a', team_id: { $not: { $eq: undefined } } }, ['a']],
    ['$or inside $and', { $and: [{ org_id: 'org_a' }, { $or: [{ team_id: undefined }, { _id: 'z' }] }] }, ['b', 'c']],
    ['$nor', { org_id: 'org_a', $nor: [{ team_id: undefined }] }, ['a']],
    ['an undefined organization', { org_id: undefined }, []],
  ])('keeps %s on undefined as a condition on null, selecting what the embedded store selects', (_name, filter, ids) => {
    expect(selected(filter)).toEqual(ids);
    expect(selected(onTheWire(toMongoFilter(filter)))).toEqual(ids);
  });

  it('sent as it was, an undefined condition vanishes on the wire and the filter widens', () => {
    // What the adapter did before: every document of the organization (or of every organization) matched.
    expect(selected(onTheWire({ org_id: 'org_a', team_id: undefined }))).toEqual(['a', 'b', 'c']);
    expect(selected(onTheWire({ org_id: undefined }))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('returns a filter without undefined as it is, Dates, arrays and other operators untouched', () => {
    const since = new Date('2030-01-01T00:00:00Z');
    const filter = { org_id: 'org_a', created_at: { $gte: since }, state: { $in: ['a', 'b'] }, $or: [{ x: 1 }, { y: { $exists: false } }], $expr: { $eq: ['$a', '$b'] } };
    expect(toMongoFilter(filter)).toBe(filter);
    const changed = toMongoFilter({ ...filter, team_id: undefined });
    expect(changed).toEqual({ ...filter, team_id: null });
    expect(changed.created_at.$gte).toBe(since);
  });

  it('walks $elemMatch, whether it holds a filter or operator conditions', () => {
    expect(toMongoFilter({ items: { $elemMatch: { k: undefined, v: 1 } } })).toEqual({ items: { $elemMatch: { k: null, v: 1 } } });
    expect(toMongoFilter({ items: { $elemMatch: { $eq: undefined } } })).toEqual({ items: { $elemMatch: { $eq: null } } });
  });

  it('converts the top-level $match stages of a pipeline only', () => {
    const group = { $group: { _id: '$team_id', n: { $sum: 1 } } };
    const pipeline = [{ $match: { org_id: 'org_a' } }, { $match: { team_id: undefined } }, group];
    expect(toMongoPipeline(pipeline)).toEqual([{ $match: { org_id: 'org_a' } }, { $match: { team_id: null } }, group]);
    const clean = [{ $match: { org_id: 'org_a' } }, group];
    expect(toMongoPipeline(clean)).toBe(clean);
  });
});

describe('ttlExpired', () => {
  const now = Date.UTC(2030, 0, 1);
  const docs = [{ at: new Date(now - 61_000), dead: true }, { at: new Date(now - 59_000), dead: true }, { at: new Date(now - 61_000), dead: false }, { at: 'not a date' }, {}];

  it.each<[string, TtlRule]>([
    ['without a partial filter', { field: 'at', seconds: 60 }],
    ['with a partial filter', { field: 'at', seconds: 60, partial: { dead: true } }],
  ])('selects exactly the documents ttlVisibility hides, %s', (_name, rule) => {
    const expired = new Query(ttlExpired(rule, now));
    const visible = new Query(ttlVisibility(rule, now));
    for (const doc of docs) expect(expired.test(doc)).toBe(!visible.test(doc));
    expect(docs.filter((doc) => expired.test(doc))).toHaveLength(rule.partial ? 1 : 2);
  });
});

describe('MongoCollection, as sent to the server', () => {
  const connection = mongoose.createConnection();
  afterAll(() => connection.close());
  let models = 0;

  /** A collection whose model records each operation's filter and stops it there. */
  function recording(): { collection: MongoCollection<Doc>; sent: { op: string; filter: unknown }[]; clock: number } {
    const sent: { op: string; filter: unknown }[] = [];
    const schema: Schema<RawDocument> = schemaFor(SPEC);
    for (const op of ['find', 'findOne', 'countDocuments', 'updateOne', 'updateMany', 'findOneAndUpdate', 'deleteOne', 'deleteMany'] as const) {
      schema.pre(op, function (this: mongoose.Query<unknown, RawDocument>) {
        sent.push({ op, filter: this.getFilter() });
        throw new Error(`stopped before ${op}`);
      });
    }
    schema.pre('aggregate', function (this: mongoose.Aggregate<unknown>) {
      sent.push({ op: 'aggregate', filter: this.pipeline() });
      throw new Error('stopped before aggregate');
    });
    schema.pre('insertMany', function () {
      throw Object.assign(new Error('E11000 duplicate key error collection: db.records index: org_key_unique dup key: { org_id: "org_a", key: "k" }'), { code: 11000 });
    });
    const clock = Date.UTC(2030, 0, 1);
    const model = connection.model<RawDocument>(`records_${(models += 1)}`, schema);
    return { collection: new MongoCollection<Doc>(SPEC, model, Promise.resolve(), () => clock), sent, clock };
  }

  it('sends an undefined condition as null in every kind of operation', async () => {
    const { collection, sent } = recording();
    const filter = { org_id: 'org_a', team_id: undefined };
    await expect(collection.find(filter)).rejects.toThrow('stopped before find');
    await expect(collection.findOne(filter)).rejects.toThrow('stopped before findOne');
    await expect(collection.count(filter)).rejects.toThrow('stopped before countDocuments');
    await expect(collection.updateOne(filter, { $set: { team_id: 'x' } })).rejects.toThrow('stopped before updateOne');
    await expect(collection.updateMany(filter, { $set: { team_id: 'x' } })).rejects.toThrow('stopped before updateMany');
    await expect(collection.findOneAndUpdate(filter, { $set: { team_id: 'x' } })).rejects.toThrow('stopped before findOneAndUpdate');
    await expect(collection.deleteOne(filter)).rejects.toThrow('stopped before deleteOne');
    await expect(collection.deleteMany(filter)).rejects.toThrow('stopped before deleteMany');
    expect(sent).toHaveLength(8);
    for (const { filter: wire } of sent) {
      const [scoped] = (onTheWire(wire) as { $and: Record<string, unknown>[] }).$and;
      expect(scoped).toEqual({ org_id: 'org_a', team_id: null });
    }
  });

  it('sends the $match stages of an aggregation with an undefined condition as null', async () => {
    const { collection, sent } = recording();
    await expect(collection.aggregate([{ $match: { org_id: 'org_a', team_id: undefined } }, { $count: 'n' }])).rejects.toThrow('stopped before aggregate');
    expect((onTheWire({ stages: sent[0].filter }) as { stages: unknown[] }).stages[1]).toEqual({ $match: { org_id: 'org_a', team_id: null } });
  });

  it('on a duplicate key, purges the expired documents with a range on the TTL field (served by its index)', async () => {
    const { collection, sent, clock } = recording();
    await expect(collection.insertOne({ _id: 'r1', org_id: 'org_a' })).rejects.toThrow('stopped before deleteMany');
    expect(sent).toEqual([{ op: 'deleteMany', filter: ttlExpired(ttlRuleOf(SPEC) ?? { field: '', seconds: 0 }, clock) }]);
    expect(sent[0].filter).toEqual({ expires_at: { $lt: new Date(clock) } });
  });
});
