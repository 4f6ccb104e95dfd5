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
