/**
 * Decimal places of a USD amount in an answer, an export, a header or an event: a ten-thousandth of
 * a micro-dollar, below any price of the table, and above the noise of binary floats
 * (`0.00014519999999999998` is `0.0001452`).
 */
export const USD_DECIMALS = 10;

/**
 * A USD amount as it is shown: float noise removed and nothing else. First 15 significant digits
 * (what a double holds for sure: this drops the last-bit noise at any size, also where 10 decimals
 * are finer than the float's own spacing, around $10^6), then `decimals` (default `USD_DECIMALS`).
 * For rendering only (response mapping, CSV cells, headers, event data): stored costs and the sums
 * over them stay unrounded, so 1,000 records of $0.0000123 still add up to $0.0123. A field whose
 * precision is documented (cost metrics: 6) passes its own `decimals`. Not a finite number: 0.
 */
export function roundUsd(value: number, decimals = USD_DECIMALS): number {
  if (!Number.isFinite(value)) return 0;
  // `toFixed` rounds the exact binary value: no intermediate product (value × 10^n) adds noise of its own.
  return Number(Number(value.toPrecision(15)).toFixed(decimals)) || 0;
}
