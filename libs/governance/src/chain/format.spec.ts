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
