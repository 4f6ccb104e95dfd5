import { BYTES_PER_MB } from '../data/limits';

// USD amounts in messages: `formatUsd` (@svc/domain), shared with event summaries and anomaly alerts.

/** Bytes as MB with at most two decimals (`1`, `0.5`, `12.25`), or two significant digits below 0.01 MB (`0.0019`), never a bare `0`. */
export function megabytes(bytes: number): string {
  const mb = bytes / BYTES_PER_MB;
  return String(mb >= 0.01 || mb <= 0 ? Math.round(mb * 100) / 100 : Number(mb.toPrecision(2)));
}

/** A list of names for messages: `a, b and c`. */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
