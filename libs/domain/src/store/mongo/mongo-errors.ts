import { DuplicateKeyError, IndexSpec, indexName } from '../types';

interface MongoLikeError {
  code?: number;
  errmsg?: string;
  message?: string;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
  writeErrors?: { code?: number; errmsg?: string; err?: { code?: number; errmsg?: string } }[];
}

const DUPLICATE_KEY = 11000;

function duplicateKeyCode(error: MongoLikeError): boolean {
  if (error.code === DUPLICATE_KEY) return true;
  const first = error.writeErrors?.[0];
  return first?.code === DUPLICATE_KEY || first?.err?.code === DUPLICATE_KEY;
}

/**
 * Maps MongoDB's E11000 (from insert, update, upsert or a bulk write) to DuplicateKeyError,
 * naming the index from the server message and its fields from the collection's spec.
 */
export function toDuplicateKeyError(collection: string, indexes: IndexSpec[], error: unknown): DuplicateKeyError | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as MongoLikeError;
  if (!duplicateKeyCode(e)) return null;
  const first = e.writeErrors?.[0];
  const message = e.errmsg ?? first?.errmsg ?? first?.err?.errmsg ?? e.message ?? '';
  const name = /index: (\S+) dup key/.exec(message)?.[1] ?? 'unknown';
  const spec = indexes.find((index) => indexName(index) === name);
  const fields = spec
    ? Object.keys(spec.fields)
    : e.keyPattern
      ? Object.keys(e.keyPattern)
      : name === '_id_'
        ? ['_id']
        : [];
  return new DuplicateKeyError(collection, name, fields, e.keyValue ?? {});
}

/** One failed document of an unordered insert, as the driver's WriteError exposes it. */
interface InsertWriteError {
  index: number;
  code?: number;
  errmsg?: string;
}

/**
 * Splits the failure of an unordered insert: the positions of the documents refused only because
 * their `_id` is taken (E11000 on the `_id_` index), and the first other failure (mapped to a
 * DuplicateKeyError when it is one), or null. An error that is not a bulk write error is the failure.
 */
export function splitInsertFailure(
  collection: string,
  indexes: IndexSpec[],
  error: unknown,
): { takenIds: number[]; failure: unknown } {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  const concern = (error as { writeConcernErrors?: unknown[] } | null)?.writeConcernErrors;
  if (!Array.isArray(writeErrors) || !writeErrors.length || concern?.length) {
    return { takenIds: [], failure: toDuplicateKeyError(collection, indexes, error) ?? error };
  }
  const takenIds: number[] = [];
  for (const writeError of writeErrors as InsertWriteError[]) {
    const duplicate = toDuplicateKeyError(collection, indexes, { code: writeError.code, errmsg: writeError.errmsg });
    if (duplicate?.index === '_id_' && typeof writeError.index === 'number') takenIds.push(writeError.index);
    else return { takenIds, failure: duplicate ?? error };
  }
  return { takenIds, failure: null };
}
