import { allocateMicros, exactMicros } from './micros';

describe('allocateMicros', () => {
  it('adds up to the sum rounded to the micro-dollar, each amount rounded down or up', () => {
    // Ten amounts of $0.0000004: $0.000004 in all, where rounding each one would show nothing.
    const shown = allocateMicros(Array.from({ length: 10 }, () => 0.0000004));
    expect(shown.reduce((a, b) => a + b, 0)).toBe(4);
    expect(shown.every((micros) => micros === 0 || micros === 1)).toBe(true);
    expect(shown.slice(0, 4)).toEqual([1, 1, 1, 1]);
  });

  it('keeps whole micro-dollars whole despite float noise, and gives the rest to the largest remainders', () => {
    expect(exactMicros(0.000027)).toBe(27);
    expect(allocateMicros([0.000027, 0.1, 0.2])).toEqual([27, 100_000, 200_000]);
    expect(allocateMicros([0.0000016, 0.0000024, 0.0000004])).toEqual([2, 2, 0]);
    expect(allocateMicros([])).toEqual([]);
  });

  it('takes the total given for groupings of the same lines', () => {
    expect(allocateMicros([0.0000005, 0.0000005], 1)).toEqual([1, 0]);
  });
});
