import { listOf } from './format';

describe('message formatting', () => {
  it('lists names', () => {
    expect(listOf(['a', 'b', 'c'])).toBe('a, b and c');
    expect(listOf(['a'])).toBe('a');
  });
});
