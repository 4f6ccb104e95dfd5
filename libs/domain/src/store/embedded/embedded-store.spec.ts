import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestClock, silentLogger } from '../../testing/stores';
import { openDocumentStore } from '../open-store';
import { defineCollection, DocumentRefusedError } from '../types';
import { EmbeddedDocumentStore } from './embedded-store';

interface Event {
  _id: string;
  at: Date;
  detail: { when: Date[]; label: string };
}

const EVENTS = defineCollection<Event>('events', [
  { fields: { at: 1 }, expireAfterSeconds: 3600, comment: 'TTL: events live one hour' },
]);

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a crash leaves behind: the directory's files as they are now, without a close. Copied, because
 * the live store keeps the directory locked; the copied lock names this process, which does not hold
 * it, so it is stale and the next open takes it over.
 */
async function crashImage(dir: string): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), 'svc-crash-'));
  await cp(dir, copy, { recursive: true });
  return copy;
}

describe('EmbeddedDocumentStore persistence', () => {
  let dir: string;
  const clock = createTestClock();
  const open = () => EmbeddedDocumentStore.open(dir, silentLogger(), { clock: clock.now, debounceMs: 20 });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const event = (id: string): Event => ({
    _id: id,
    at: new Date(clock.now()),
    detail: { when: [new Date('2025-03-01T00:00:00.000Z')], label: id },
  });

  it('is what openDocumentStore returns without MONGODB_URI, reporting not_configured', async () => {
    const store = await openDocumentStore({ DATA_DIR: dir }, silentLogger());
    expect(store.kind).toBe('embedded');
    expect(store.status()).toBe('not_configured');
    await store.close();
  });

  it('refuses a document its files cannot hold (an invalid date, a BigInt), inserted or updated, and keeps writing the others', async () => {
    const store = await open();
    const events = store.collection(EVENTS);
    await events.insertOne(event('e1'));
    const invalid = { ...event('bad'), at: new Date(Number.NaN) };
    await expect(events.insertOne(invalid)).rejects.toBeInstanceOf(DocumentRefusedError);
    await expect(events.insertNew([event('e2'), { ...event('big'), detail: { when: [], label: 1n as unknown as string } }])).rejects.toThrow(/detail\.label is a BigInt/);
    await expect(events.updateOne({ _id: 'e1' }, { $set: { 'detail.when': [new Date(Number.NaN)] } })).rejects.toThrow(/detail\.when\.0 is an invalid date/);
    await events.insertOne(event('e3'));
    await store.close();
    const reopened = await open();
    expect((await reopened.collection(EVENTS).find({}, { sort: { _id: 1 } })).map((doc) => [doc._id, doc.detail.when.length])).toEqual([['e1', 1], ['e2', 1], ['e3', 1]]);
    await reopened.close();
  });

  it('writes one file per collection on close, with Dates tagged, and reads them back as Dates', async () => {
    const store = await open();
    await store.collection(EVENTS).insertMany([event('e1'), event('e2')]);
    await store.close();

    const file = JSON.parse(await readFile(join(dir, 'events.json'), 'utf8'));
    expect(file.documents[0].detail.when[0]).toEqual({ $date: '2025-03-01T00:00:00.000Z' });

    const reopened = await open();
    const found = await reopened.collection(EVENTS).findOne({ _id: 'e1' });
    expect(found).toEqual(event('e1'));
    expect(found?.detail.when[0]).toBeInstanceOf(Date);
    await reopened.close();
  });

  it('writes changes after the debounce interval without waiting for close, leaving no temp files', async () => {
    const store = await open();
    await store.collection(EVENTS).insertOne(event('e1'));
    await wait(120);
    // Inserts are appended to the journal: a crash now would not lose them.
    const image = await crashImage(dir);
    const reader = await EmbeddedDocumentStore.open(image, silentLogger());
    expect((await reader.collection(EVENTS).find({})).map((d: Event) => d._id)).toEqual(['e1']);
    await reader.close();
    await rm(image, { recursive: true, force: true });
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    await store.close();
  });

  it('sweeps expired documents out of memory and off disk', async () => {
    const store = await open();
    const events = store.collection(EVENTS);
    await events.insertMany([event('e1'), event('e2')]);
    clock.advance(3_601_000);
    await events.insertOne(event('e3'));
    expect(store.sweepExpired()).toBe(2);
    await store.flush();
    const file = JSON.parse(await readFile(join(dir, 'events.json'), 'utf8'));
    expect(file.documents.map((d: Event) => d._id)).toEqual(['e3']);
    await store.close();
  });

  it('refuses to open over an unreadable collection file, naming it', async () => {
    await writeFile(join(dir, 'events.json'), '{ not json');
    const store = await open();
    expect(() => store.collection(EVENTS)).toThrow(/events\.json/);
    await store.close();
  });

  it('refuses operations once closed', async () => {
    const store = await open();
    const events = store.collection(EVENTS);
    await store.close();
    await expect(events.find({})).rejects.toThrow(/closed/);
  });
});

describe('EmbeddedDocumentStore journal', () => {
  const event = (id: string): Event => ({ _id: id, at: new Date(), detail: { when: [new Date('2025-03-01T00:00:00Z')], label: id } });
  it('appends inserts to a journal, rewrites on other changes, and survives a crash between the two', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-journal-'));
    let crashed: string | undefined;
    try {
      const store = await EmbeddedDocumentStore.open(dir, silentLogger(), { debounceMs: 10 });
      const events = store.collection(EVENTS);
      await events.insertMany([event('a'), event('b')]);
      await store.flush();
      expect((await readdir(dir)).sort()).toEqual(['events.journal.jsonl', 'store.lock']);
      await events.insertOne(event('c'));
      await store.flush();
      expect((await readFile(join(dir, 'events.journal.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(3);

      // A torn last line (a crash mid-append) is dropped; the complete lines are kept.
      crashed = await crashImage(dir);
      await writeFile(join(crashed, 'events.journal.jsonl'), `${await readFile(join(crashed, 'events.journal.jsonl'), 'utf8')}{"_id":"tor`);
      const recovered = await EmbeddedDocumentStore.open(crashed, silentLogger(), { debounceMs: 10 });
      expect((await recovered.collection(EVENTS).find({})).map((d) => d._id).sort()).toEqual(['a', 'b', 'c']);
      await recovered.collection(EVENTS).deleteOne({ _id: 'a' });
      await recovered.close();
      expect((await readdir(crashed)).sort()).toEqual(['events.json']);
      const reopened = await EmbeddedDocumentStore.open(crashed, silentLogger());
      expect((await reopened.collection(EVENTS).find({})).map((d) => d._id).sort()).toEqual(['b', 'c']);
      await reopened.close();
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
      if (crashed) await rm(crashed, { recursive: true, force: true });
    }
  });
});
