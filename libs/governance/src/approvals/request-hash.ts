import { createHash } from 'node:crypto';

/**
 * The canonical form of a JSON body: object keys sorted at every level, no whitespace, so the same
 * request re-submitted by another client library (key order, spacing) hashes the same.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** SHA-256 (hex) of the canonical request body: what an approval is bound to. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body ?? null), 'utf8').digest('hex');
}
