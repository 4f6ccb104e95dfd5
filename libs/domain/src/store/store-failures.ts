import { DocumentRefusedError, DuplicateKeyError, StoreUnavailableError } from './types';

/**
 * What a failed write says about retrying it:
 * - `unavailable`: the store could not be reached or did not answer in time (a closed embedded
 *   store, MongoDB's network and server-selection errors, a primary stepping down, a timeout): the
 *   same write may succeed later, so the data is kept and retried.
 * - `refused`: the store refused the data itself (DocumentRefusedError, a duplicate key on a unique
 *   index): the same write fails the same way.
 * - `unknown`: anything else.
 */
export type StoreFailureKind = 'unavailable' | 'refused' | 'unknown';

/** The driver's and mongoose's error classes for a server that cannot be reached or answered no more. */
const UNAVAILABLE_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoClientClosedError',
  'MongoServerClosedError',
  'MongoOperationTimeoutError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
  'MongoWriteConcernError',
]);

/**
 * MongoDB's retryable codes (the driver's retryable-writes set) with the time limit this project
 * sets (`maxTimeMS`: MaxTimeMSExpired, 50), a write concern that timed out (64), and credentials
 * the server no longer takes (Unauthorized 13, AuthenticationFailed 18): nothing is written until
 * an operator fixes them, whatever the data.
 */
const UNAVAILABLE_CODES = new Set([6, 7, 13, 18, 50, 64, 89, 91, 134, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

/** Error labels the server or the driver put on an error worth retrying. */
const UNAVAILABLE_LABELS = ['RetryableWriteError', 'ResetPool', 'PoolRequestedRetry', 'RetryableError', 'SystemOverloadedError'];

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  writeConcernErrors?: unknown;
  hasErrorLabel?: (label: string) => boolean;
}

/** Whether a MongoDB write error code (of one document of a bulk write) is a transient one. */
export function isUnavailableCode(code: unknown): boolean {
  return typeof code === 'number' && UNAVAILABLE_CODES.has(code);
}

function unavailable(error: ErrorShape): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (typeof error.name === 'string' && UNAVAILABLE_NAMES.has(error.name)) return true;
  if (isUnavailableCode(error.code)) return true;
  if (Array.isArray(error.writeConcernErrors) && error.writeConcernErrors.length > 0) return true;
  if (typeof error.hasErrorLabel === 'function' && UNAVAILABLE_LABELS.some((label) => error.hasErrorLabel?.(label))) return true;
  // mongoose, its commands queued while disconnected: "Operation `x.insertMany()` buffering timed out after 10000ms".
  return typeof error.message === 'string' && error.message.includes('buffering timed out');
}

/** Classifies a failed store write (see StoreFailureKind); a wrapped `cause` counts as its wrapper. */
export function storeFailureKind(error: unknown): StoreFailureKind {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 4; depth += 1) {
    const shape = current as ErrorShape;
    if (unavailable(shape)) return 'unavailable';
    if (current instanceof DocumentRefusedError || current instanceof DuplicateKeyError) return 'refused';
    current = shape.cause;
  }
  return 'unknown';
}
