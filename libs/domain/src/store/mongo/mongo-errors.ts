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
