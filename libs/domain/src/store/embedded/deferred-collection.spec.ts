import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../testing/stores';
import { defineCollection } from '../types';
import { DeferredCollection } from './deferred-collection';
import { EmbeddedDocumentStore } from './embedded-store';

interface Hit {
  _id: string;
  org: string;
  at: Date;
}

const HITS = defineCollection<Hit>('hits', [{ fields: { org: 1, at: -1 }, comment: 'hits of an org over time' }], { deferLoad: true });
const hit = (id: string, org = 'o1'): Hit => ({ _id: id, org, at: new Date('2026-11-01T10:00:00Z') });

describe('EmbeddedDocumentStore, write-mostly (deferLoad) collections', () => {
  let dir: string;
  const open = () => EmbeddedDocumentStore.open(dir, silentLogger(), { debounceMs: 10 });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-deferred-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('appends inserts to the journal without reading the collection, and reads them all on first read', async () => {
    const first = await open();
    await first.collection(HITS).insertMany([hit('a'), hit('b')]);
    await first.close();

    const store = await open();
    const hits = store.collection(HITS) as DeferredCollection<Hit>;
    await hits.insertMany([hit('c'), hit('d', 'o2')]);
    await hits.insertOne(hit('e'));
    await store.flush();
    expect(hits.isLoaded).toBe(false);
    // Unloaded, the journal grows: nothing was folded into the collection file.
    const journal = (await readFile(join(dir, 'hits.journal.jsonl'), 'utf8')).trim().split('\n');
    expect(journal.map((line) => JSON.parse(line)._id)).toEqual(['a', 'b', 'c', 'd', 'e']);

    await hits.insertOne(hit('f')); // not yet on disk when the read comes
    const found = await hits.find({ org: 'o1' }, { sort: { _id: 1 } });
    expect(hits.isLoaded).toBe(true);
    expect(found.map((h) => h._id)).toEqual(['a', 'b', 'c', 'e', 'f']);
    expect(found[0].at).toEqual(new Date('2026-11-01T10:00:00Z'));
    await hits.insertOne(hit('g', 'o2'));
    expect(await hits.count({ org: 'o2' })).toBe(2);
    await store.close();

    const reopened = await open();
    expect((await reopened.collection(HITS).find({}, { sort: { _id: 1 } })).map((h) => h._id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    await reopened.close();
  });

  it('keeps a document once when its line was written while the collection loaded', async () => {
    const store = await open();
    const hits = store.collection(HITS) as DeferredCollection<Hit>;
    await hits.insertOne(hit('x'));
    const writing = store.flush(); // the append is in flight...
    expect(await hits.count({})).toBe(1); // ...while a read loads the collection
    await writing;
    await store.close();
    const reopened = await open();
    expect(await reopened.collection(HITS).count({})).toBe(1);
    await reopened.close();
  });

  it('keeps appending every debounce interval when a write was slowed by a busy event loop', async () => {
    const store = await open();
    const hits = store.collection(HITS) as DeferredCollection<Hit>;
    await hits.insertOne(hit('first'));
    const writing = store.flush();
    for (let i = 0; i < 5; i++) await Promise.resolve(); // the append is in flight...
    const blockedUntil = Date.now() + 300;
    while (Date.now() < blockedUntil); // ...and its completion waits for a busy event loop
    await writing;
    // An append is not paced like a rewrite: the next insert is on disk after the 10 ms debounce,
    // not 50 x 300 ms later, while usage lines pile up in memory.
    await hits.insertOne(hit('next'));
    const journal = join(dir, 'hits.journal.jsonl');
    const deadline = Date.now() + 2_000;
    while (!(await readFile(journal, 'utf8')).includes('"next"')) {
      if (Date.now() > deadline) throw new Error('the second insert was not appended within 2 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await store.close();
  });

  it('refuses a document without an _id and operations once closed', async () => {
    const store = await open();
    const hits = store.collection(HITS);
    await expect(hits.insertOne({ org: 'o1', at: new Date() } as unknown as Hit)).rejects.toThrow('_id');
    await store.close();
    await expect(hits.insertOne(hit('late'))).rejects.toThrow('closed');
  });
});
