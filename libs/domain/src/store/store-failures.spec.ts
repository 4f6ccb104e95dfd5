import mongoose from 'mongoose';
import { storeFailureKind } from './store-failures';
import { DocumentRefusedError, DuplicateKeyError, StoreUnavailableError } from './types';

// The driver's error classes, through mongoose (the driver is not a dependency of its own).
const { MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } = mongoose.mongo;

/** What the usage recorder keeps and retries (`unavailable`) and what it splits and dead-letters (`refused`). */
describe('storeFailureKind', () => {
  it('calls a store that cannot be reached or answer in time unavailable, with the driver\'s own errors', () => {
    expect(storeFailureKind(new StoreUnavailableError('The embedded document store is closed'))).toBe('unavailable');
    expect(storeFailureKind(new MongoNetworkError('connection 1 to 10.0.0.1:27017 closed'))).toBe('unavailable');
    expect(storeFailureKind(new MongoServerSelectionError('Server selection timed out after 5000 ms', { type: 'Unknown', servers: new Map(), stale: false, compatible: true, heartbeatFrequencyMS: 10_000, localThresholdMS: 15, setName: null, maxElectionId: null, maxSetVersion: null, commonWireVersion: 0, logicalSessionTimeoutMinutes: null } as never))).toBe('unavailable');
    expect(storeFailureKind(new MongoServerError({ code: 189, errmsg: 'PrimarySteppedDown' }))).toBe('unavailable');
    expect(storeFailureKind(new MongoServerError({ code: 50, errmsg: 'operation exceeded time limit' }))).toBe('unavailable');
    expect(storeFailureKind(new MongoWriteConcernError({ writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } } as never))).toBe('unavailable');
    expect(storeFailureKind(new Error('Operation `usage_records.insertMany()` buffering timed out after 10000ms'))).toBe('unavailable');
    expect(storeFailureKind(new Error('wrapped', { cause: new MongoNetworkError('reset') }))).toBe('unavailable');
  });

  it('calls a document the store will not take refused, and anything else unknown', () => {
    expect(storeFailureKind(new DocumentRefusedError('usage_records', 'documents need a non-empty string _id'))).toBe('refused');
    expect(storeFailureKind(new DuplicateKeyError('usage_records', 'slot_unique', ['slot']))).toBe('refused');
    expect(storeFailureKind(new MongoServerError({ code: 2, errmsg: 'BadValue' }))).toBe('unknown');
    expect(storeFailureKind(new TypeError('x is not a function'))).toBe('unknown');
    expect(storeFailureKind('a string')).toBe('unknown');
  });
});
