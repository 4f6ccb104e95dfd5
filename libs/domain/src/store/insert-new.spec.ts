/**
 * `insertNew`: a batch retried after a partial write stores each document once and does not fail
 * on the documents that went in (the usage recorder retries a failed batch as a whole).
 */
import { storeTargets, StoreUnderTest } from '../testing/stores';
import { Collection, defineCollection, DuplicateKeyError } from './types';

interface Entry {
  _id: string;
  slot: string;
  created_at: Date;
}

const ENTRIES = defineCollection<Entry>('entries', [
  { fields: { created_at: 1 }, expireAfterSeconds: 60, comment: 'TTL: an entry lives one minute' },
  { fields: { slot: 1 }, unique: true, name: 'slot_unique', comment: 'one entry per slot' },
]);

const JOURNALED = defineCollection<Entry>('journaled_entries', [], { deferLoad: true });

describe.each(storeTargets(process.env.MONGODB_URI))('insertNew ($name)', (target) => {
  let ctx: StoreUnderTest;
  let entries: Collection<Entry>;

  beforeEach(async () => {
    ctx = await target.open();
    entries = ctx.store.collection(ENTRIES);
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  const entry = (id: string, extra: Partial<Entry> = {}): Entry => ({ _id: id, slot: `slot-${id}`, created_at: new Date(ctx.clock.now()), ...extra });
  const batch = (...ids: string[]) => ids.map((id) => entry(id));
  const ids = async (collection: Collection<Entry> = entries) => (await collection.find({}, { sort: { _id: 1 } })).map((doc) => doc._id);

  it('stores a batch recorded twice once, without an error', async () => {
    await expect(entries.insertNew(batch('e1', 'e2', 'e3'))).resolves.toBe(3);
    await expect(entries.insertNew(batch('e1', 'e2', 'e3'))).resolves.toBe(0);
    expect(await ids()).toEqual(['e1', 'e2', 'e3']);
  });

  it('stores the rest of a batch half of which was stored before, each record once', async () => {
    await entries.insertMany(batch('e1', 'e3'));
    await expect(entries.insertNew(batch('e1', 'e2', 'e3', 'e4'))).resolves.toBe(2);
    expect(await ids()).toEqual(['e1', 'e2', 'e3', 'e4']);
    // The stored version of a skipped record is kept, not replaced.
    await entries.insertNew([entry('e1', { slot: 'changed' })]);
    expect(await entries.findOne({ _id: 'e1' })).toMatchObject({ slot: 'slot-e1' });
  });

  it('stores an id repeated in one batch once', async () => {
    await expect(entries.insertNew([entry('e1'), entry('e1', { slot: 'again' }), entry('e2')])).resolves.toBe(2);
    expect(await entries.find({}, { sort: { _id: 1 } })).toEqual([entry('e1'), entry('e2')]);
  });

  it('still throws a duplicate on another unique index, after inserting the other records', async () => {
    await entries.insertOne(entry('e1'));
    const error = await entries.insertNew([entry('e1'), entry('e2', { slot: 'slot-e1' }), entry('e3')]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'slot_unique', fields: ['slot'] });
    expect(await ids()).toEqual(['e1', 'e3']);
  });

  it('inserts a record whose id is held by an expired document', async () => {
    await entries.insertOne(entry('e1', { slot: 'old' }));
    ctx.clock.advance(120_000);
    await expect(entries.insertNew([entry('e1')])).resolves.toBe(1);
    expect(await entries.findOne({ _id: 'e1' })).toMatchObject({ slot: 'slot-e1' });
  });

  it('skips stored ids in a write-mostly collection, before and after it is loaded', async () => {
    const journaled = ctx.store.collection(JOURNALED);
    await journaled.insertNew(batch('j1', 'j2'));
    await journaled.insertNew(batch('j1', 'j2', 'j3'));
    expect(await ids(journaled)).toEqual(['j1', 'j2', 'j3']);
    await expect(journaled.insertNew(batch('j3', 'j4'))).resolves.toBe(1);
    expect(await ids(journaled)).toEqual(['j1', 'j2', 'j3', 'j4']);
    const reopened = (await ctx.reopen()).collection(JOURNALED);
    expect(await ids(reopened)).toEqual(['j1', 'j2', 'j3', 'j4']);
  });
});
