/**
 * What can be checked of the MongoDB adapter without a server: the schema and indexes it declares,
 * how mongoose casts the filters it sends, its E11000 mapping, and that opening fails fast. The
 * contract suites run the adapter itself when MONGODB_URI is set.
 */
import { Query } from 'mingo';
import mongoose from 'mongoose';
import { present } from '../../testing/jest-helpers';
import { silentLogger } from '../../testing/stores';
import { API_KEYS } from '../../api-keys/api-key.entity';
import { ttlRuleOf, ttlVisibility } from '../document-utils';
import { defineCollection, DuplicateKeyError } from '../types';
import { toDuplicateKeyError } from './mongo-errors';
import { MongoDocumentStore, schemaFor } from './mongo-store';

const SPEC = defineCollection<{ _id: string }>('sessions', [
  { fields: { expires_at: 1 }, expireAfterSeconds: 60, comment: 'TTL' },
  { fields: { org_id: 1, key: 1 }, unique: true, name: 'org_key_unique', comment: 'one per key' },
  { fields: { org_id: 1, created_at: -1 }, comment: 'listing' },
]);

describe('MongoDB adapter, without a server', () => {
  const connection = mongoose.createConnection();
  afterAll(() => connection.close());

  it('declares a strict:false, versionless schema with a string _id and every index of the spec', () => {
    const schema = schemaFor(SPEC);
    expect(schema.get('strict')).toBe(false);
    expect(schema.get('versionKey')).toBe(false);
    expect(schema.get('autoIndex')).toBe(false);
    expect(schema.path('_id').instance).toBe('String');
    expect(schema.indexes()).toEqual([
      [{ expires_at: 1 }, { name: 'expires_at_1', expireAfterSeconds: 60 }],
      [{ org_id: 1, key: 1 }, { name: 'org_key_unique', unique: true }],
      [{ org_id: 1, created_at: -1 }, { name: 'org_id_1_created_at_-1' }],
    ]);
    expect(schemaFor(API_KEYS).indexes()[1]).toEqual([
      { org_id: 1, name: 1 },
      { name: 'current_name_unique', unique: true, partialFilterExpression: { status: 'active', replaced_by: { $type: 'null' } } },
    ]);
  });

  it('keeps Dates and operators when mongoose casts a TTL-guarded filter', () => {
    const model = connection.model('ttl_cast', schemaFor(SPEC));
    const since = new Date('2030-01-01T00:00:00Z');
    const filter = { $and: [{ org_id: 'org_a', created_at: { $gte: since } }, ttlVisibility(present(ttlRuleOf(SPEC)), since.getTime())] };
    const cast = model.find(filter).cast() as { $and: Record<string, { $gte?: Date; $not?: { $lt: Date } }>[] };
    expect(cast.$and[0].created_at.$gte).toEqual(since);
    expect(cast.$and[1].expires_at.$not?.$lt).toEqual(new Date(since.getTime() - 60_000));
  });

  it("computes TTL visibility the same way as the embedded store's expiry", () => {
    const now = Date.UTC(2030, 0, 1);
    const visible = new Query(ttlVisibility({ field: 'at', seconds: 60 }, now));
    expect(visible.test({ at: new Date(now - 59_000) })).toBe(true);
    expect(visible.test({ at: new Date(now - 61_000) })).toBe(false);
    expect(visible.test({ at: 'not a date' })).toBe(true);
    expect(visible.test({})).toBe(true);
    const partial = new Query(ttlVisibility({ field: 'at', seconds: 60, partial: { dead: true } }, now));
    expect(partial.test({ at: new Date(now - 61_000), dead: true })).toBe(false);
    expect(partial.test({ at: new Date(now - 61_000), dead: false })).toBe(true);
  });

  it('maps E11000 from a write (server error) to DuplicateKeyError with the spec fields', () => {
    const serverError = Object.assign(new Error('E11000 duplicate key error collection: db.sessions index: org_key_unique dup key: { org_id: "o", key: "k" }'), {
      name: 'MongoServerError',
      code: 11000,
      keyPattern: { org_id: 1, key: 1 },
      keyValue: { org_id: 'o', key: 'k' },
    });
    const mapped = toDuplicateKeyError('sessions', SPEC.indexes, serverError);
    expect(mapped).toBeInstanceOf(DuplicateKeyError);
    expect(mapped).toMatchObject({ collection: 'sessions', index: 'org_key_unique', fields: ['org_id', 'key'], keyValue: { org_id: 'o', key: 'k' } });
  });

  it('maps E11000 from an insertMany (bulk write error) and the _id index', () => {
    const bulkError = Object.assign(new Error('E11000 duplicate key error collection: db.sessions index: _id_ dup key: { _id: "s1" }'), {
      name: 'MongoBulkWriteError',
      writeErrors: [{ index: 1, code: 11000, errmsg: 'E11000 duplicate key error collection: db.sessions index: _id_ dup key: { _id: "s1" }' }],
    });
    expect(toDuplicateKeyError('sessions', SPEC.indexes, bulkError)).toMatchObject({ index: '_id_', fields: ['_id'] });
    expect(toDuplicateKeyError('sessions', SPEC.indexes, Object.assign(new Error('boom'), { code: 2 }))).toBeNull();
    expect(toDuplicateKeyError('sessions', SPEC.indexes, 'not an error')).toBeNull();
  });

  it('fails fast and cleanly when no server answers', async () => {
    const started = Date.now();
    await expect(
      MongoDocumentStore.open('mongodb://127.0.0.1:1/svc_test', silentLogger(), { serverSelectionTimeoutMS: 300 }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
