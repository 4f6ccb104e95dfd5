import { storeTargets, StoreUnderTest } from '../testing/stores';
import { Collection, defineCollection } from './types';

interface Ticket {
  _id: string;
  key: string;
  created_at: Date;
  n: number;
}

interface Letter {
  _id: string;
  dead_letter: boolean;
  created_at: Date;
}

const TICKETS = defineCollection<Ticket>('tickets', [
  { fields: { created_at: 1 }, expireAfterSeconds: 60, comment: 'TTL: a ticket lives one minute' },
  { fields: { key: 1 }, unique: true, comment: 'one live ticket per key' },
]);

const LETTERS = defineCollection<Letter>('letters', [
  {
    fields: { created_at: 1 },
    expireAfterSeconds: 60,
    partialFilterExpression: { dead_letter: true },
    comment: 'TTL for dead letters only',
  },
]);

describe.each(storeTargets(process.env.MONGODB_URI))('TTL indexes ($name)', (target) => {
  let ctx: StoreUnderTest;
  let tickets: Collection<Ticket>;

  beforeEach(async () => {
    ctx = await target.open();
    tickets = ctx.store.collection(TICKETS);
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  const ticket = (id: string, ageSeconds = 0): Ticket => ({
    _id: id,
    key: `key-${id}`,
    created_at: new Date(ctx.clock.now() - ageSeconds * 1000),
    n: 1,
  });

  it('hides expired documents from every read', async () => {
    await tickets.insertMany([ticket('old', 61), ticket('new', 10)]);
    expect((await tickets.find({})).map((t) => t._id)).toEqual(['new']);
    expect(await tickets.findOne({ _id: 'old' })).toBeNull();
    expect(await tickets.count({})).toBe(1);
    expect(await tickets.aggregate([{ $group: { _id: null, count: { $sum: 1 } } }])).toEqual([{ _id: null, count: 1 }]);
  });

  it('expires a document once the clock passes its TTL', async () => {
    await tickets.insertOne(ticket('t1'));
    ctx.clock.advance(59_000);
    expect(await tickets.count({ _id: 't1' })).toBe(1);
    ctx.clock.advance(2_000);
    expect(await tickets.count({ _id: 't1' })).toBe(0);
  });

  it('does not update or delete an expired document', async () => {
    await tickets.insertOne(ticket('t1', 120));
    expect(await tickets.updateOne({ _id: 't1' }, { $inc: { n: 1 } })).toEqual({ matched: 0, modified: 0 });
    expect(await tickets.findOneAndUpdate({ _id: 't1' }, { $inc: { n: 1 } })).toBeNull();
    expect(await tickets.deleteMany({})).toBe(0);
  });

  it('lets a new document take the unique key (and the _id) of an expired one', async () => {
    await tickets.insertOne(ticket('t1'));
    ctx.clock.advance(120_000);
    await expect(tickets.insertOne({ ...ticket('t2'), key: 'key-t1' })).resolves.toMatchObject({ _id: 't2' });
    await expect(tickets.insertOne({ ...ticket('t1'), key: 'key-other' })).resolves.toMatchObject({ _id: 't1' });
    expect(await tickets.count({})).toBe(2);
  });

  it('lets an upsert replace an expired document under the same key', async () => {
    await tickets.insertOne(ticket('t1'));
    ctx.clock.advance(120_000);
    const now = new Date(ctx.clock.now());
    const result = await tickets.updateOne(
      { key: 'key-t1' },
      { $setOnInsert: { _id: 't9', created_at: now, n: 5 } },
      { upsert: true },
    );
    expect(result.upsertedId).toBe('t9');
    expect(await tickets.findOne({ key: 'key-t1' })).toEqual({ _id: 't9', key: 'key-t1', created_at: now, n: 5 });
  });

  it('applies a partial TTL only to matching documents', async () => {
    const letters = ctx.store.collection(LETTERS);
    await ctx.store.ready();
    const old = new Date(ctx.clock.now() - 3_600_000);
    await letters.insertMany([
      { _id: 'dead', dead_letter: true, created_at: old },
      { _id: 'live', dead_letter: false, created_at: old },
    ]);
    expect((await letters.find({})).map((l) => l._id)).toEqual(['live']);
  });
});
