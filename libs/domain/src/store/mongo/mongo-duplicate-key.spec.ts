/**
 * E11000 as the MongoDB driver raises it (its own error classes, built from server replies), mapped to
 * DuplicateKeyError: the index from the reply's structured fields, the message text as a fallback.
 */
import mongoose from 'mongoose';
import { defineCollection, DuplicateKeyError } from '../types';
import { splitInsertFailure, toDuplicateKeyError } from './mongo-errors';

const { MongoServerError, MongoBulkWriteError } = mongoose.mongo;

const SPEC = defineCollection<{ _id: string }>('sessions', [
  { fields: { org_id: 1, key: 1 }, unique: true, name: 'org_key_unique', comment: 'one per key' },
  { fields: { org_id: 1, email: 1 }, unique: true, name: 'active_email_unique', partialFilterExpression: { active: true }, comment: 'one active per e-mail' },
  { fields: { org_id: 1, email: 1 }, unique: true, name: 'invited_email_unique', partialFilterExpression: { invited: true }, comment: 'one invitation per e-mail' },
  { fields: { key: 1, org_id: 1 }, comment: 'same fields, other order, not unique' },
]);

/** A server reply to a write that hit a unique index, as MongoDB sends it. */
const reply = (errmsg: string, keyPattern?: Record<string, number>, keyValue?: Record<string, unknown>) => ({
  ok: 0,
  code: 11000,
  codeName: 'DuplicateKey',
  errmsg,
  ...(keyPattern ? { keyPattern } : {}),
  ...(keyValue ? { keyValue } : {}),
});

describe('toDuplicateKeyError, on the driver\'s errors', () => {
  it('names the index from keyPattern when the message does not (MongoDB-compatible servers word it otherwise)', () => {
    const error = new MongoServerError(reply('E11000 duplicate key error collection: svc.sessions. Failed _id or unique index constraint', { org_id: 1, key: 1 }, { org_id: 'o', key: 'k' }));
    const mapped = toDuplicateKeyError('sessions', SPEC.indexes, error);
    expect(mapped).toBeInstanceOf(DuplicateKeyError);
    expect(mapped).toMatchObject({ index: 'org_key_unique', fields: ['org_id', 'key'], keyValue: { org_id: 'o', key: 'k' } });
  });

  it('reads the reply kept in errorResponse when the error object itself lacks the fields', () => {
    const error = new MongoServerError(reply('E11000 duplicate key error', { _id: 1 }, { _id: 's1' }));
    // A wrapper that keeps only the code and the reply (as mongoose's and the driver's wrapping errors do).
    const wrapped = Object.assign(new Error('write failed'), { code: 11000, errorResponse: error.errorResponse });
    expect(toDuplicateKeyError('sessions', SPEC.indexes, wrapped)).toMatchObject({ index: '_id_', fields: ['_id'], keyValue: { _id: 's1' } });
  });

  it('tells two partial unique indexes on the same key apart by the name in the message', () => {
    const error = new MongoServerError(
      reply('E11000 duplicate key error collection: svc.sessions index: invited_email_unique dup key: { org_id: "o", email: "a@b.c" }', { org_id: 1, email: 1 }, { org_id: 'o', email: 'a@b.c' }),
    );
    expect(toDuplicateKeyError('sessions', SPEC.indexes, error)).toMatchObject({ index: 'invited_email_unique', fields: ['org_id', 'email'] });
  });

  it('falls back to the message for a bulk write, whose write errors carry no key pattern', () => {
    const errmsg = 'E11000 duplicate key error collection: svc.sessions index: org_key_unique dup key: { org_id: "o", key: "k" }';
    const bulk = new MongoBulkWriteError({ message: errmsg, code: 11000, writeErrors: [{ index: 0, code: 11000, errmsg }] as never }, {} as never);
    expect(toDuplicateKeyError('sessions', SPEC.indexes, bulk)).toMatchObject({ index: 'org_key_unique', fields: ['org_id', 'key'] });
    expect(splitInsertFailure('sessions', SPEC.indexes, bulk).failure).toMatchObject({ index: 'org_key_unique' });
  });

  it('leaves other server errors alone', () => {
    expect(toDuplicateKeyError('sessions', SPEC.indexes, new MongoServerError({ ok: 0, code: 121, errmsg: 'Document failed validation' }))).toBeNull();
  });
});
