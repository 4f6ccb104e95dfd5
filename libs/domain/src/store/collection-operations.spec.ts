import { storeTargets, StoreUnderTest } from '../testing/stores';
import { Collection, defineCollection, DuplicateKeyError } from './types';

interface Thing {
  _id: string;
  org_id: string;
  name: string;
  n: number;
  tags: string[];
  at: Date;
  meta?: { color?: string; size?: number };
  note?: string | null;
}

const THINGS = defineCollection<Thing>('things', [
  { fields: { org_id: 1, n: -1 }, comment: 'list things of an org by n' },
]);

const day = (d: number) => new Date(Date.UTC(2025, 0, d, 12));

function thing(id: string, n: number, extra: Partial<Thing> = {}): Thing {
  return { _id: id, org_id: 'org_a', name: `thing ${id}`, n, tags: [], at: day(n), ...extra };
}

describe.each(storeTargets(process.env.MONGODB_URI))('Collection operations ($name)', (target) => {
  let ctx: StoreUnderTest;
  let things: Collection<Thing>;

  beforeEach(async () => {
    ctx = await target.open();
    things = ctx.store.collection(THINGS);
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  describe('insertOne / findOne', () => {
    it('stores a document and returns it with Dates and nested values intact', async () => {
      await things.insertOne(thing('t1', 1, { meta: { color: 'red' }, tags: ['a'] }));
      const found = await things.findOne({ _id: 't1' });
      expect(found).toEqual(thing('t1', 1, { meta: { color: 'red' }, tags: ['a'] }));
      expect(found?.at).toBeInstanceOf(Date);
    });

    it('returns copies: changing a returned document does not change the stored one', async () => {
      const inserted = await things.insertOne(thing('t1', 1));
      inserted.name = 'changed';
      const found = (await things.findOne({ _id: 't1' })) as Thing;
      found.tags.push('x');
      expect(await things.findOne({ _id: 't1' })).toMatchObject({ name: 'thing t1', tags: [] });
    });

    it('drops undefined fields', async () => {
      await things.insertOne({ ...thing('t1', 1), note: undefined });
      const found = await things.findOne({ _id: 't1' });
      expect(found && 'note' in found).toBe(false);
    });

    it('rejects a document without a string _id', async () => {
      await expect(things.insertOne({ ...thing('x', 1), _id: '' })).rejects.toThrow(/string _id/);
    });

    it('rejects a second document with the same _id', async () => {
      await things.insertOne(thing('t1', 1));
      await expect(things.insertOne(thing('t1', 2))).rejects.toMatchObject({ name: 'DuplicateKeyError', index: '_id_', fields: ['_id'] });
    });

    it('returns null when nothing matches, and honours sort', async () => {
      await things.insertMany([thing('t1', 1), thing('t2', 2), thing('t3', 3)]);
      expect(await things.findOne({ name: 'nope' })).toBeNull();
      expect((await things.findOne({}, { sort: { n: -1 } }))?._id).toBe('t3');
    });
  });

  describe('insertMany', () => {
    it('is ordered: documents before a duplicate stay inserted', async () => {
      await things.insertOne(thing('t2', 2));
      const error = await things.insertMany([thing('t1', 1), thing('t2', 2), thing('t3', 3)]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect((await things.find({}, { sort: { _id: 1 } })).map((t) => t._id)).toEqual(['t1', 't2']);
    });
  });

  describe('find / count', () => {
    beforeEach(async () => {
      await things.insertMany([
        thing('t1', 1, { tags: ['red'], meta: { size: 1 } }),
        thing('t2', 2, { tags: ['blue', 'red'] }),
        thing('t3', 3, { org_id: 'org_b' }),
        thing('t4', 4, { tags: ['blue'], note: null }),
        thing('t5', 5),
      ]);
    });

    it('applies query operators ($gte on dates, $in, $exists, $or, dotted paths)', async () => {
      const ids = async (filter: Record<string, unknown>) =>
        (await things.find(filter, { sort: { _id: 1 } })).map((t) => t._id);
      expect(await ids({ at: { $gte: day(4) } })).toEqual(['t4', 't5']);
      expect(await ids({ tags: { $in: ['red'] } })).toEqual(['t1', 't2']);
      expect(await ids({ tags: 'blue' })).toEqual(['t2', 't4']);
      expect(await ids({ meta: { $exists: true } })).toEqual(['t1']);
      expect(await ids({ 'meta.size': 1 })).toEqual(['t1']);
      expect(await ids({ note: null })).toEqual(['t1', 't2', 't3', 't4', 't5']);
      expect(await ids({ $or: [{ n: 1 }, { org_id: 'org_b' }] })).toEqual(['t1', 't3']);
      expect(await ids({ n: { $gt: 1, $lt: 4 }, org_id: { $ne: 'org_b' } })).toEqual(['t2']);
    });

    it('sorts, skips, limits and projects', async () => {
      const page = await things.find({ org_id: 'org_a' }, { sort: { n: -1 }, skip: 1, limit: 2, projection: { n: 1 } });
      expect(page).toEqual([
        { _id: 't4', n: 4 },
        { _id: 't2', n: 2 },
      ]);
    });

    it('counts matching documents', async () => {
      expect(await things.count({ org_id: 'org_a' })).toBe(4);
      expect(await things.count({ n: { $gte: 10 } })).toBe(0);
    });
  });

  describe('updateOne / updateMany', () => {
    beforeEach(async () => {
      await things.insertMany([thing('t1', 1, { tags: ['a'], meta: { color: 'red' } }), thing('t2', 2)]);
    });

    it('applies $set, $inc, $unset and $push, reporting matched and modified', async () => {
      const result = await things.updateOne(
        { _id: 't1' },
        { $set: { name: 'renamed', 'meta.size': 3 }, $inc: { n: 10 }, $unset: { 'meta.color': '' }, $push: { tags: 'b' } },
      );
      expect(result).toEqual({ matched: 1, modified: 1 });
      expect(await things.findOne({ _id: 't1' })).toMatchObject({ name: 'renamed', n: 11, tags: ['a', 'b'], meta: { size: 3 } });
      expect((await things.findOne({ _id: 't1' }))?.meta).toEqual({ size: 3 });
    });

    it('reports modified 0 when the update changes nothing, and 0/0 when nothing matches', async () => {
      expect(await things.updateOne({ _id: 't1' }, { $set: { n: 1 } })).toEqual({ matched: 1, modified: 0 });
      expect(await things.updateOne({ _id: 'none' }, { $set: { n: 1 } })).toEqual({ matched: 0, modified: 0 });
    });

    it('upserts from the filter equalities plus $setOnInsert, and ignores $setOnInsert on a match', async () => {
      const created = await things.updateOne(
        { _id: 't9', org_id: 'org_c' },
        { $set: { n: 9 }, $setOnInsert: { name: 'new', tags: [], at: day(9) } },
        { upsert: true },
      );
      expect(created).toEqual({ matched: 0, modified: 0, upsertedId: 't9' });
      expect(await things.findOne({ _id: 't9' })).toEqual({ _id: 't9', org_id: 'org_c', n: 9, name: 'new', tags: [], at: day(9) });
      const again = await things.updateOne({ _id: 't9' }, { $set: { n: 10 }, $setOnInsert: { name: 'ignored' } }, { upsert: true });
      expect(again).toEqual({ matched: 1, modified: 1 });
      expect(await things.findOne({ _id: 't9' })).toMatchObject({ n: 10, name: 'new' });
    });

    it('refuses an upsert that does not give the _id, and a replacement document', async () => {
      await expect(things.updateOne({ name: 'x' }, { $set: { n: 1 } }, { upsert: true })).rejects.toThrow(/_id/);
      await expect(things.updateOne({ _id: 't1' }, { n: 5 } as never)).rejects.toThrow(/operator/);
    });

    it('updates every match with updateMany', async () => {
      expect(await things.updateMany({ org_id: 'org_a' }, { $inc: { n: 100 } })).toEqual({ matched: 2, modified: 2 });
      expect((await things.find({}, { sort: { n: 1 } })).map((t) => t.n)).toEqual([101, 102]);
    });
  });

  describe('findOneAndUpdate', () => {
    beforeEach(async () => {
      await things.insertMany([thing('t1', 1), thing('t2', 2)]);
    });

    it('returns the document after the update by default, or before it when asked', async () => {
      expect(await things.findOneAndUpdate({ _id: 't1' }, { $inc: { n: 1 } })).toMatchObject({ _id: 't1', n: 2 });
      expect(await things.findOneAndUpdate({ _id: 't1' }, { $inc: { n: 1 } }, { returnDocument: 'before' })).toMatchObject({ n: 2 });
      expect(await things.findOne({ _id: 't1' })).toMatchObject({ n: 3 });
    });

    it('updates the first document in sort order and returns null when nothing matches', async () => {
      expect(await things.findOneAndUpdate({}, { $set: { name: 'top' } }, { sort: { n: -1 } })).toMatchObject({ _id: 't2', name: 'top' });
      expect(await things.findOneAndUpdate({ _id: 'none' }, { $set: { n: 0 } })).toBeNull();
    });

    it('upserts: the new document after, null before', async () => {
      const after = await things.findOneAndUpdate({ _id: 't8' }, { $setOnInsert: { n: 8, org_id: 'org_a' } }, { upsert: true });
      expect(after).toEqual({ _id: 't8', n: 8, org_id: 'org_a' });
      const before = await things.findOneAndUpdate({ _id: 't7' }, { $set: { n: 7 } }, { upsert: true, returnDocument: 'before' });
      expect(before).toBeNull();
      expect(await things.count({ _id: { $in: ['t7', 't8'] } })).toBe(2);
    });

    it('applies a conditional update exactly once (the optimistic-concurrency pattern)', async () => {
      const first = await things.findOneAndUpdate({ _id: 't1', n: 1 }, { $set: { n: 2 } });
      const second = await things.findOneAndUpdate({ _id: 't1', n: 1 }, { $set: { n: 2 } });
      expect(first).toMatchObject({ n: 2 });
      expect(second).toBeNull();
    });
  });

  describe('deleteOne / deleteMany', () => {
    it('deletes one or every match and reports how many', async () => {
      await things.insertMany([thing('t1', 1), thing('t2', 2), thing('t3', 3, { org_id: 'org_b' })]);
      expect(await things.deleteOne({ org_id: 'org_a' })).toBe(1);
      expect(await things.deleteOne({ _id: 'none' })).toBe(0);
      expect(await things.deleteMany({ n: { $gte: 1 } })).toBe(2);
      expect(await things.count({})).toBe(0);
    });
  });

  describe('aggregate', () => {
    it('runs $match, $group (with date grouping) and $sort', async () => {
      await things.insertMany([
        thing('t1', 1, { at: new Date('2025-01-01T01:00:00Z') }),
        thing('t2', 2, { at: new Date('2025-01-01T23:00:00Z') }),
        thing('t3', 3, { at: new Date('2025-01-02T10:00:00Z') }),
        thing('t4', 4, { org_id: 'org_b' }),
      ]);
      const rows = await things.aggregate<{ _id: string; total: number; count: number }>([
        { $match: { org_id: 'org_a' } },
        { $group: { _id: { $dateToString: { format: '%Y-%m-%d', date: '$at' } }, total: { $sum: '$n' }, count: { $sum: 1 } } },
        { $sort: { _id: 1 } },
      ]);
      expect(rows).toEqual([
        { _id: '2025-01-01', total: 3, count: 2 },
        { _id: '2025-01-02', total: 3, count: 1 },
      ]);
    });

    it('applies several leading $match stages, $expr and date ranges, and a $match after a $group', async () => {
      await things.insertMany([thing('t1', 1), thing('t2', 2), thing('t3', 3), thing('t4', 4, { org_id: 'org_b' }), thing('t5', 5, { name: 'x' })]);
      const rows = await things.aggregate<{ _id: string; total: number }>([
        { $match: { org_id: 'org_a' } },
        { $match: { at: { $gte: day(2), $lt: day(6) }, $expr: { $ne: ['$name', 'x'] } } },
        { $group: { _id: '$org_id', total: { $sum: '$n' } } },
        { $match: { total: { $gt: 4 } } },
      ]);
      expect(rows).toEqual([{ _id: 'org_a', total: 5 }]);
      expect(await things.aggregate([{ $match: { org_id: 'org_c' } }, { $group: { _id: null, count: { $sum: 1 } } }])).toEqual([]);
    });

    it('hands out copies: a pipeline that rewrites fields, or a caller changing its rows, leaves the stored documents as they were', async () => {
      await things.insertMany([thing('t1', 1, { meta: { color: 'red' } }), thing('t2', 2)]);
      const rows = await things.aggregate<Thing>([{ $match: { _id: 't1' } }, { $set: { name: 'rewritten' } }]);
      expect(rows).toEqual([{ ...thing('t1', 1, { meta: { color: 'red' } }), name: 'rewritten' }]);
      (rows[0].meta as { color: string }).color = 'blue';
      const all = await things.aggregate<Thing>([]);
      expect(all.map((doc) => doc._id).sort()).toEqual(['t1', 't2']);
      expect(await things.findOne({ _id: 't1' })).toEqual(thing('t1', 1, { meta: { color: 'red' } }));
    });
  });

  describe('reopen', () => {
    it('returns every document after the store is closed and opened again', async () => {
      await things.insertMany([thing('t1', 1, { meta: { color: 'red' } }), thing('t2', 2)]);
      await things.updateOne({ _id: 't2' }, { $set: { name: 'updated' } });
      const reopened = (await ctx.reopen()).collection(THINGS);
      expect(await reopened.find({}, { sort: { _id: 1 } })).toEqual([
        thing('t1', 1, { meta: { color: 'red' } }),
        { ...thing('t2', 2), name: 'updated' },
      ]);
    });
  });
});
