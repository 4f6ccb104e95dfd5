import { isUnavailableCode } from '../store-failures';
import { DocumentRefusedError, DuplicateKeyError, IndexSpec, indexName, StoreUnavailableError } from '../types';

/** The parts of the driver's MongoServerError (and MongoBulkWriteError, WriteError) read here. */
interface MongoLikeError {
  code?: number;
  errmsg?: string;
  message?: string;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
  /** The server's reply as the driver received it (MongoServerError keeps it whole). */
  errorResponse?: { errmsg?: string; keyPattern?: Record<string, unknown>; keyValue?: Record<string, unknown> };
  writeErrors?: { code?: number; errmsg?: string; err?: { code?: number; errmsg?: string; keyPattern?: Record<string, unknown>; keyValue?: Record<string, unknown> } }[];
}

const DUPLICATE_KEY = 11000;

function duplicateKeyCode(error: MongoLikeError): boolean {
  if (error.code === DUPLICATE_KEY) return true;
  const first = error.writeErrors?.[0];
  return first?.code === DUPLICATE_KEY || first?.err?.code === DUPLICATE_KEY;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Same fields, same order, same directions: `{a: 1, b: -1}` is not `{b: -1, a: 1}`. */
function sameKey(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ea = Object.entries(a);
  const eb = Object.entries(b);
  return ea.length === eb.length && ea.every(([field, direction], i) => eb[i][0] === field && Number(eb[i][1]) === Number(direction));
}

/**
 * The index an E11000 names. The server's structured reply (`keyPattern`) identifies it among the
 * spec's unique indexes; the name in the message text (`index: <name> dup key`) decides between
 * unique indexes on the same key (partial ones), and is the fallback when the reply has no key
 * pattern (the writeErrors of a bulk write) or matches no declared index. Servers that word the
 * message otherwise (MongoDB-compatible services) are recognized by the key pattern.
 */
function duplicateIndex(indexes: IndexSpec[], keyPattern: Record<string, unknown> | undefined, message: string): { name: string; spec?: IndexSpec } {
  const named = /index: (\S+) dup key/.exec(message)?.[1];
  const byName = named ? indexes.find((index) => indexName(index) === named) : undefined;
  if (keyPattern) {
    const matching = indexes.filter((index) => index.unique && sameKey(index.fields, keyPattern));
    const spec = matching.length === 1 ? matching[0] : matching.find((index) => index === byName);
    if (spec) return { name: indexName(spec), spec };
    if (sameKey(keyPattern, { _id: 1 })) return { name: '_id_' };
  }
  if (byName) return { name: named as string, spec: byName };
  return { name: named ?? 'unknown' };
}

/**
 * Maps MongoDB's E11000 (from insert, update, upsert or a bulk write) to DuplicateKeyError, naming
 * the index and its fields (from the collection's spec) and the duplicate key's value, from the
 * driver's structured fields (`keyPattern`, `keyValue`, `errorResponse`) with the message as fallback.
 */
export function toDuplicateKeyError(collection: string, indexes: IndexSpec[], error: unknown): DuplicateKeyError | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as MongoLikeError;
  if (!duplicateKeyCode(e)) return null;
  const first = e.writeErrors?.[0];
  const structured = [e, e.errorResponse, first?.err].filter(isRecord) as { keyPattern?: unknown; keyValue?: unknown }[];
  const keyPattern = structured.map((source) => source.keyPattern).find(isRecord);
  const keyValue = structured.map((source) => source.keyValue).find(isRecord);
  const message = e.errmsg ?? e.errorResponse?.errmsg ?? first?.errmsg ?? first?.err?.errmsg ?? e.message ?? '';
  const { name, spec } = duplicateIndex(indexes, keyPattern, message);
  const fields = spec ? Object.keys(spec.fields) : keyPattern ? Object.keys(keyPattern) : name === '_id_' ? ['_id'] : [];
  return new DuplicateKeyError(collection, name, fields, keyValue ?? {});
}

/** One failed document of an unordered insert, as the driver's WriteError exposes it. */
interface InsertWriteError {
  index: number;
  code?: number;
  errmsg?: string;
}

/**
 * Splits the failure of an unordered insert: the positions of the documents refused only because
 * their `_id` is taken (E11000 on the `_id_` index), and the first other failure, or null. That
 * failure is a DuplicateKeyError for another unique index, a StoreUnavailableError for a transient
 * code (a primary stepping down mid-batch), else a DocumentRefusedError (the server refused that
 * document: a failed validation, a value it cannot store). An error that is not a bulk write error
 * is the failure as it is (client-side refusals: see toInsertRefusal).
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
    else if (duplicate) return { takenIds, failure: duplicate };
    else if (isUnavailableCode(writeError.code)) return { takenIds, failure: new StoreUnavailableError(writeError.errmsg ?? 'write failed', { cause: error }) };
    else return { takenIds, failure: new DocumentRefusedError(collection, `${writeError.errmsg ?? 'write error'} (code ${writeError.code ?? 'none'})`, { cause: error }) };
  }
  return { takenIds, failure: null };
}

/**
 * A refusal the driver raises before sending (a document of 16 MB or more, a value BSON cannot
 * encode) as a DocumentRefusedError; any other error as it is.
 */
export function toInsertRefusal(collection: string, error: unknown): unknown {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (name === 'BSONError' || (name === 'MongoInvalidArgumentError' && text.startsWith('Document is larger than the maximum size'))) {
    return new DocumentRefusedError(collection, text, { cause: error });
  }
  return error;
}
