import { isPlainObject } from '../document-utils';

type AnyObject = Record<string, unknown>;

const LOGICAL = new Set(['$and', '$or', '$nor']);
/** Operators whose operand is a value compared for equality: `undefined` there means null, as in the embedded store. */
const EQUALITY = new Set(['$eq', '$ne']);
/** Operators whose operand is itself a condition (or a filter) to walk. */
const NESTED = new Set(['$not', '$elemMatch']);

/**
 * A condition on one field: `undefined` as the value, or as the operand of `$eq`/`$ne`, becomes null.
 * `$elemMatch` holds a filter or operator conditions: both are walked.
 */
function condition(value: unknown): unknown {
  if (value === undefined) return null;
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (!keys.some((k) => k.startsWith('$'))) return value;
  let out: AnyObject | null = null;
  for (const key of keys) {
    const operand = value[key];
    let next = operand;
    if (EQUALITY.has(key) && operand === undefined) next = null;
    else if (NESTED.has(key) && isPlainObject(operand)) next = Object.keys(operand).some((k) => k.startsWith('$')) ? condition(operand) : toMongoFilter(operand);
    if (next !== operand) {
      out ??= { ...value };
      out[key] = next;
    }
  }
  return out ?? value;
}

/**
 * The filter as MongoDB must receive it to select what the embedded store selects. The connection
 * drops `undefined` values (`ignoreUndefined`, which inserts and updates need), so `{ team_id: undefined }`
 * would reach the server as no condition at all and match every document, where mingo reads it as
 * `null` (missing or null). Equality conditions on `undefined` are therefore sent as `null`, in
 * `$and`/`$or`/`$nor`, `$not` and `$elemMatch` too. Filters without one are returned as they are.
 */
export function toMongoFilter<F>(filter: F): F {
  if (!isPlainObject(filter)) return filter;
  let out: AnyObject | null = null;
  for (const [key, value] of Object.entries(filter)) {
    const next = LOGICAL.has(key) && Array.isArray(value) ? mapArray(value, toMongoFilter) : key.startsWith('$') ? value : condition(value);
    if (next !== value) {
      out ??= { ...filter };
      out[key] = next;
    }
  }
  return (out ?? filter) as F;
}

/** The array mapped, or the same array when nothing changed. */
function mapArray(values: unknown[], map: (value: unknown) => unknown): unknown[] {
  const mapped = values.map(map);
  return mapped.some((value, i) => value !== values[i]) ? mapped : values;
}

/** A pipeline with its top-level `$match` stages passed through `toMongoFilter`. */
export function toMongoPipeline<S extends AnyObject>(pipeline: S[]): S[] {
  return mapArray(pipeline, (stage) => {
    const match = (stage as AnyObject).$match;
    if (Object.keys(stage as AnyObject).length !== 1 || !isPlainObject(match)) return stage;
    const next = toMongoFilter(match);
    return next === match ? stage : { $match: next };
  }) as S[];
}
