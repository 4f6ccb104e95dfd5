import { listOf, megabytes, usd } from './format';

describe('message formatting', () => {
  it('shows dollars with the precision small amounts need', () => {
    expect(usd(100)).toBe('$100.00');
    expect(usd(0.25)).toBe('$0.25');
    expect(usd(0.0123)).toBe('$0.0123');
    expect(usd(0.000062)).toBe('$0.000062');
    expect(usd(0.0005)).toBe('$0.0005');
    expect(usd(0)).toBe('$0.00');
  });

  it('keeps the significant digits of amounts below a millionth instead of $0.00', () => {
    expect(usd(0.0000001)).toBe('$0.0000001');
    expect(usd(0.00000025)).toBe('$0.00000025');
    expect(usd(0.000000123456)).toBe('$0.000000123');
    expect(usd(1e-12)).toBe('$0.000000000001');
    expect(usd(1e-200)).toBe('$1e-200');
    // From a millionth up, as before.
    expect(usd(0.0012345)).toBe('$0.001234');
    expect(usd(0.000001)).toBe('$0.000001');
  });

  it('shows MB and lists', () => {
    expect(megabytes(1048576)).toBe('1');
    expect(megabytes(524288)).toBe('0.5');
    // A small limit keeps its size in MB instead of rounding to 0.
    expect(megabytes(2000)).toBe('0.0019');
    expect(megabytes(1)).toBe('9.5e-7');
    expect(listOf(['a', 'b', 'c'])).toBe('a, b and c');
    expect(listOf(['a'])).toBe('a');
  });
});
