/**
 * How the MongoDB adapter handles duplicate keys, checked without a server (as in
 * mongo-filter.spec.ts): mongoose middleware records each operation and answers it with a scripted
 * result or a simulated E11000, so the driver is never reached.
 */
import mongoose, { Schema } from 'mongoose';
import { storeFailureKind } from '../store-failures';
import { CollectionSpec, defineCollection, DocumentRefusedError, DuplicateKeyError, StoreUnavailableError } from '../types';
import { MongoCollection, RawDocument } from './mongo-collection';
import { schemaFor } from './mongo-store';

type Doc = { _id: string; org_id: string; key?: string; n?: number; expires_at?: Date };

const TTL_SPEC = defineCollection<Doc>('revoked', [
  { fields: { expires_at: 1 }, expireAfterSeconds: 0, comment: 'TTL' },
  { fields: { org_id: 1, key: 1 }, unique: true, name: 'org_key_unique', comment: 'one per key' },
]);
const PLAIN_SPEC = defineCollection<Doc>('plain', [{ fields: { org_id: 1, key: 1 }, unique: true, name: 'org_key_unique', comment: 'one per key' }]);

const duplicateOn = (index: string) =>
  Object.assign(new Error(`E11000 duplicate key error collection: db.revoked index: ${index} dup key: { _id: "x" }`), { code: 11000 });

/** A bulk write error of an unordered insert, shaped like the driver's (WriteError exposes index, code, errmsg). */
const bulkFailure = (failures: [number, string][]) =>
  Object.assign(new Error('E11000 duplicate key error'), {
    code: 11000,
    writeErrors: failures.map(([index, name]) => ({ index, code: 11000, errmsg: duplicateOn(name).message })),
  });

type Answer = unknown | Error;

describe('MongoCollection, duplicate keys', () => {
  const connection = mongoose.createConnection();
  afterAll(() => connection.close());
  let models = 0;

  /** A collection whose operations answer from `script` (per operation, in order) and are recorded in `sent`. */
  function scripted(spec: CollectionSpec<Doc>, script: Record<string, Answer[]>) {
    const sent: string[] = [];
    const schema: Schema<RawDocument> = schemaFor(spec);
    const answer = (op: string) => {
      sent.push(op);
      const next = script[op]?.shift();
      if (next === undefined) throw new Error(`unexpected ${op}`);
      // Thrown, not returned: mongoose skips the operation and resolves it with this result.
      throw next instanceof Error ? next : mongoose.skipMiddlewareFunction(next);
    };
    for (const op of ['updateOne', 'findOneAndUpdate', 'deleteMany'] as const) {
      schema.pre(op, () => answer(op));
    }
    schema.pre('insertMany', () => answer('insertMany'));
    const model = connection.model<RawDocument>(`${spec.name}_${(models += 1)}`, schema);
    return { collection: new MongoCollection<Doc>(spec, model, Promise.resolve(), () => Date.UTC(2030, 0, 1)), sent };
  }

  const updated = { acknowledged: true, matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null };

  describe('an upsert that loses a race (E11000 on its insert)', () => {
    it('is retried once on a TTL collection, after the purge of expired documents, and matches the winner', async () => {
      const { collection, sent } = scripted(TTL_SPEC, { updateOne: [duplicateOn('org_key_unique'), updated], deleteMany: [{ deletedCount: 0 }] });
      await expect(collection.updateOne({ org_id: 'o', key: 'k' }, { $set: { n: 1 }, $setOnInsert: { _id: 'd1' } }, { upsert: true })).resolves.toEqual({ matched: 1, modified: 1 });
      expect(sent).toEqual(['updateOne', 'deleteMany', 'updateOne']);
    });

    it('is retried once on a collection without TTL, with no purge', async () => {
      const { collection, sent } = scripted(PLAIN_SPEC, { findOneAndUpdate: [duplicateOn('org_key_unique'), { _id: 'd1', org_id: 'o', key: 'k', n: 2 }] });
      await expect(collection.findOneAndUpdate({ _id: 'd1', org_id: 'o', key: 'k' }, { $inc: { n: 1 } }, { upsert: true })).resolves.toMatchObject({ _id: 'd1', n: 2 });
      expect(sent).toEqual(['findOneAndUpdate', 'findOneAndUpdate']);
    });

    it('throws a DuplicateKeyError when the retry conflicts again (a real conflict on another key)', async () => {
      const { collection, sent } = scripted(TTL_SPEC, { updateOne: [duplicateOn('org_key_unique'), duplicateOn('org_key_unique')], deleteMany: [{ deletedCount: 0 }] });
      const error = await collection.updateOne({ _id: 'd2' }, { $set: { org_id: 'o', key: 'k' } }, { upsert: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect(error).toMatchObject({ index: 'org_key_unique', fields: ['org_id', 'key'] });
      expect(sent).toEqual(['updateOne', 'deleteMany', 'updateOne']);
    });
  });

  it('does not retry an update that is not an upsert when nothing expired', async () => {
    const { collection, sent } = scripted(TTL_SPEC, { updateOne: [duplicateOn('org_key_unique')], deleteMany: [{ deletedCount: 0 }] });
    await expect(collection.updateOne({ _id: 'd1' }, { $set: { key: 'k' } })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(sent).toEqual(['updateOne', 'deleteMany']);
  });

  describe('insertNew (unordered)', () => {
    const docs: Doc[] = [
      { _id: 'a', org_id: 'o', key: 'a' },
      { _id: 'b', org_id: 'o', key: 'b' },
      { _id: 'c', org_id: 'o', key: 'c' },
    ];

    it('skips the documents refused on the _id_ index only, and counts the others', async () => {
      const { collection, sent } = scripted(PLAIN_SPEC, { insertMany: [bulkFailure([[0, '_id_'], [2, '_id_']])] });
      await expect(collection.insertNew(docs)).resolves.toBe(1);
      expect(sent).toEqual(['insertMany']);
    });

    it('on a TTL collection, tries the refused documents once more when expired documents were purged', async () => {
      const { collection, sent } = scripted(TTL_SPEC, { insertMany: [bulkFailure([[1, '_id_']]), bulkFailure([[0, '_id_']])], deleteMany: [{ deletedCount: 1 }] });
      await expect(collection.insertNew(docs)).resolves.toBe(2);
      expect(sent).toEqual(['insertMany', 'deleteMany', 'insertMany']);
    });

    it('throws a duplicate on another unique index as a DuplicateKeyError', async () => {
      const { collection } = scripted(PLAIN_SPEC, { insertMany: [bulkFailure([[0, '_id_'], [1, 'org_key_unique']])] });
      const error = await collection.insertNew(docs).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect(error).toMatchObject({ index: 'org_key_unique' });
    });

    it('throws a document the server refused (a failed validation) as a DocumentRefusedError, a transient write error as unavailable', async () => {
      const failure = (code: number, errmsg: string) => Object.assign(new Error(errmsg), { code, writeErrors: [{ index: 0, code: 11000, errmsg: duplicateOn('_id_').message }, { index: 1, code, errmsg }] });
      const refused = scripted(PLAIN_SPEC, { insertMany: [failure(121, 'Document failed validation')] });
      const error = await refused.collection.insertNew(docs).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DocumentRefusedError);
      expect(storeFailureKind(error)).toBe('refused');
      const steppedDown = scripted(PLAIN_SPEC, { insertMany: [failure(189, 'PrimarySteppedDown')] });
      const transient = await steppedDown.collection.insertNew(docs).catch((e: unknown) => e);
      expect(transient).toBeInstanceOf(StoreUnavailableError);
      expect(storeFailureKind(transient)).toBe('unavailable');
    });

    it('throws a document the driver cannot send (16 MB or more) as a DocumentRefusedError', async () => {
      const tooLarge = Object.assign(new Error('Document is larger than the maximum size 16777216'), { name: 'MongoInvalidArgumentError' });
      const { collection } = scripted(PLAIN_SPEC, { insertMany: [tooLarge] });
      await expect(collection.insertNew(docs)).rejects.toBeInstanceOf(DocumentRefusedError);
    });

    it('throws any other failure as it is', async () => {
      const down = new Error('connection closed');
      const { collection } = scripted(PLAIN_SPEC, { insertMany: [down] });
      await expect(collection.insertNew(docs)).rejects.toBe(down);
    });
  });
});
