import { listOf, megabytes } from './format';

describe('message formatting', () => {
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
