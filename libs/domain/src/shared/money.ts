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

/**
 * A USD amount for human-readable text (refusal and approval messages, event summaries, anomaly
 * alerts): a dollar or more with cents (`$12.50`), a cent up to a dollar with up to 4 decimals
 * (`$0.25`, `$0.0123`), below a cent with up to 6 (`$0.000062`), and below a millionth with 3
 * significant digits (`$0.0000001`, `$0.000000123`), so an amount above 0 never reads as `$0.00`.
 * Trailing zeros past the cents are dropped. A negative amount keeps its sign (`-$0.50`); what is
 * not a finite number prints as it is (`NaN`). Text only: headers, JSON numbers and CSV cells
 * carry the amount itself (`roundUsd`).
 */
export function formatUsd(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const amount = Math.abs(value);
  if (amount === 0) return '$0.00';
  const sign = value < 0 ? '-' : '';
  if (amount >= 1) return `${sign}$${amount.toFixed(2)}`;
  const digits = amount >= 0.01 ? 4 : Math.max(6, 2 - Math.floor(Math.log10(amount)));
  // Beyond what toFixed can write (an absurd value such as 1e-200): exponent notation.
  if (digits > 100) return `${sign}$${Number(amount.toPrecision(3))}`;
  return `${sign}$${amount.toFixed(digits).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

/**
 * A number in plain decimals, as `String` writes it except that a magnitude below 10^-6 is not put in
 * exponent form (`4e-7`, a cheap request's cost, is `0.0000004`): for headers and CSV cells, whose
 * readers (finance tools, spreadsheets in some locales, header parsers) should not have to parse it.
 * Exact: the digits are `String`'s own, moved behind the zeros.
 */
export function plainDecimal(value: number): string {
  const text = String(value);
  const small = /^(-?)(\d)(?:\.(\d+))?e-(\d+)$/.exec(text);
  if (!small) return text;
  const [, sign, lead, rest = '', exponent] = small;
  return `${sign}0.${'0'.repeat(Number(exponent) - 1)}${lead}${rest}`;
}

/** USD as micro-dollars, float noise removed (`0.000027 * 1e6` is 26.999999999999996): not rounded to whole ones. */
export function exactMicros(usd: number): number {
  return Number((usd * 1_000_000).toPrecision(15));
}

export const fromMicros = (micros: number): number => micros / 1_000_000;

/**
 * Whole micro-dollars for amounts that must add up to their total exactly (largest remainder):
 * the total is the amounts' sum rounded to the micro-dollar, and each amount is its own value
 * rounded down or up, within a micro-dollar, so ten lines of $0.0000004 show $0.000004 in all
 * instead of ten zeros. The micro-dollars left over after rounding every amount down go to the
 * largest remainders (ties: the larger amount, then the earlier one). `totalMicros`, when given,
 * is the total of the same amounts summed elsewhere (so groupings of one set of lines share it).
 */
export function allocateMicros(amounts: readonly number[], totalMicros?: number): number[] {
  const exact = amounts.map(exactMicros);
  const floors = exact.map(Math.floor);
  const total = totalMicros ?? Math.round(exactMicros(amounts.reduce((sum, usd) => sum + usd, 0)));
  let left = total - floors.reduce((sum, micros) => sum + micros, 0);
  const order = exact.map((_, i) => i).sort((a, b) => exact[b] - floors[b] - (exact[a] - floors[a]) || exact[b] - exact[a] || a - b);
  for (const i of order) {
    if (left <= 0) break;
    floors[i] += 1;
    left -= 1;
  }
  return floors;
}
