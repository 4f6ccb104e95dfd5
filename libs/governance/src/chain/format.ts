import { BYTES_PER_MB } from '../data/limits';

/**
 * USD for messages: cents above a dollar, more digits for small amounts (`$0.0123`, `$0.000450`);
 * below a millionth, three significant digits (`$0.0000001`, `$0.000000125`): never `$0.00` for
 * an amount above 0.
 * Message text only: headers and JSON numbers carry the amount as it is.
 */
export function usd(value: number): string {
  const amount = Number.isFinite(value) ? Math.max(0, value) : 0;
  if (amount === 0) return '$0.00';
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  const digits = amount >= 0.01 ? 4 : Math.max(6, 2 - Math.floor(Math.log10(amount)));
  // Beyond what toFixed can write (an absurd policy value such as 1e-200): exponent notation.
  if (digits > 100) return `$${Number(amount.toPrecision(3))}`;
  return `$${amount.toFixed(digits).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

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
