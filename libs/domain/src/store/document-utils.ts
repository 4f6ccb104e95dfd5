import { update as mingoUpdate } from 'mingo';
import { DocumentRefusedError } from './types';
import type { CollectionSpec, Filter, IndexSpec, StoredDocument, Update } from './types';

type AnyObject = Record<string, unknown>;

const UPDATE_OPERATORS = new Set([
  '$set',
  '$setOnInsert',
  '$unset',
  '$inc',
  '$push',
  '$addToSet',
  '$pull',
  '$min',
  '$max',
]);

/** The TTL rule of a collection: documents expire `seconds` after the date in `field`. */
export interface TtlRule {
  field: string;
  seconds: number;
  partial?: Record<string, unknown>;
}

export function ttlRuleOf(spec: CollectionSpec<StoredDocument>): TtlRule | null {
  const index = spec.indexes.find((i) => i.expireAfterSeconds !== undefined);
  if (!index) return null;
  const fields = Object.keys(index.fields);
  if (fields.length !== 1) {
    throw new Error(`TTL index on ${spec.name} must have exactly one field, has ${fields.join(', ')}`);
  }
  return { field: fields[0], seconds: index.expireAfterSeconds as number, partial: index.partialFilterExpression };
}

/**
 * The MongoDB condition that keeps documents whose TTL has not elapsed at `nowMs` (a document
 * expires once the date in the TTL field is more than `seconds` old; non-dates never expire).
 */
export function ttlVisibility(rule: TtlRule, nowMs: number): Record<string, unknown> {
  const cutoff = new Date(nowMs - rule.seconds * 1000);
  if (rule.partial) return { $nor: [{ $and: [rule.partial, { [rule.field]: { $lt: cutoff } }] }] };
  return { [rule.field]: { $not: { $lt: cutoff } } };
}

/**
 * The MongoDB condition that selects the documents expired at `nowMs`: the complement of
 * `ttlVisibility`, written as a range on the TTL field so that the TTL index serves it.
 */
export function ttlExpired(rule: TtlRule, nowMs: number): Record<string, unknown> {
  const expired = { [rule.field]: { $lt: new Date(nowMs - rule.seconds * 1000) } };
  return rule.partial ? { $and: [rule.partial, expired] } : expired;
}

export function uniqueIndexesOf(spec: CollectionSpec<StoredDocument>): IndexSpec[] {
  return spec.indexes.filter((i) => i.unique);
}

/**
 * Checks an update document: operators only (no replacement documents), known operators only.
 * Returns it without empty operator objects; `null` when nothing is left to change.
 */
export function normalizeUpdate<T>(update: Update<T>): Update<T> | null {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [op, fields] of Object.entries(update as Record<string, unknown>)) {
    if (!UPDATE_OPERATORS.has(op)) {
      throw new Error(`Unsupported update operator or replacement field: ${op}`);
    }
    if (fields === undefined) continue;
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
      throw new Error(`Update operator ${op} needs an object of field paths`);
    }
    const defined = Object.entries(fields as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (defined.some(([path]) => path === '_id' && op !== '$setOnInsert')) {
      throw new Error('The _id of a document cannot be updated');
    }
    if (defined.length) out[op] = Object.fromEntries(defined);
  }
  return Object.keys(out).length ? (out as Update<T>) : null;
}

/** Plain-object test that also holds across realms (jest's vm contexts, worker threads). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return Object.prototype.toString.call(value) === '[object Object]';
}

export function isDate(value: unknown): value is Date {
  return Object.prototype.toString.call(value) === '[object Date]';
}

/** Deep copy of a document: plain objects, arrays and Dates are copied; other values are shared. */
export function cloneDocument<V>(value: V): V {
  if (Array.isArray(value)) return value.map((v) => cloneDocument(v)) as V;
  if (isDate(value)) return new Date(value.getTime()) as V;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = cloneDocument(v);
    return out as V;
  }
  return value;
}

function hasOperatorKeys(value: Record<string, unknown>): boolean {
  return Object.keys(value).some((k) => k.startsWith('$'));
}

/**
 * The fields an upsert copies from its filter into the new document (MongoDB's rule: equality
 * conditions, including `$eq` and those inside top-level `$and`), as `path -> value`.
 */
export function upsertSeed(filter: Filter<unknown>): Record<string, unknown> {
  const seed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value) Object.assign(seed, upsertSeed(part as Filter<unknown>));
      continue;
    }
    if (key.startsWith('$')) continue;
    if (isPlainObject(value) && hasOperatorKeys(value)) {
      if ('$eq' in value) seed[key] = value.$eq;
      continue;
    }
    seed[key] = value;
  }
  return seed;
}

/** Removes `undefined` object properties, deeply (both adapters drop them, like MongoDB's `ignoreUndefined`). */
export function stripUndefined<V>(value: V): V {
  if (Array.isArray(value)) return value.map((v) => stripUndefined(v)) as V;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = stripUndefined(v);
    return out as V;
  }
  return value;
}

export function assertDocumentId(collection: string, doc: StoredDocument): void {
  if (typeof doc?._id !== 'string' || doc._id.length === 0) {
    throw new DocumentRefusedError(collection, 'documents need a non-empty string _id');
  }
}

/** The `_id` an upsert will insert with: from the filter's equality or the update's `$setOnInsert`/`$set`. */
export function upsertId(collection: string, filter: Filter<unknown>, update: Update<unknown>): string {
  const id = upsertSeed(filter)._id ?? update.$setOnInsert?.['_id'];
  if (typeof id !== 'string' || !id) {
    throw new Error(`An upsert into ${collection} must give the _id in its filter or in $setOnInsert`);
  }
  return id;
}

/**
 * The document an upsert inserts when nothing matched (MongoDB's rule): the filter's equality
 * fields, then `$setOnInsert`, then the other operators.
 */
export function buildUpsertDocument<T extends StoredDocument>(collection: string, filter: Filter<T>, update: Update<T>): T {
  const id = upsertId(collection, filter as Filter<unknown>, update as Update<unknown>);
  const doc: AnyObject = { _id: id };
  const options = { cloneMode: 'deep' as const };
  const { _id: _seedId, ...seed } = upsertSeed(filter as Filter<unknown>);
  if (Object.keys(seed).length) mingoUpdate(doc, { $set: seed }, undefined, undefined, options);
  const { $setOnInsert, ...rest } = update;
  const { _id: _insertId, ...onInsert } = ($setOnInsert ?? {}) as AnyObject;
  if (Object.keys(onInsert).length) mingoUpdate(doc, { $set: onInsert }, undefined, undefined, options);
  if (Object.keys(rest).length) mingoUpdate(doc, rest as AnyObject, undefined, undefined, options);
  return stripUndefined(doc) as unknown as T;
}
