import { parseQueryNumber } from './query-number';

describe('parseQueryNumber: plain decimal notation only', () => {
  it.each([
    ['0', 0],
    ['1.5', 1.5],
    ['007', 7],
    ['-2', -2],
    ['168.0', 168],
  ])('reads %j as %j', (value, number) => {
    expect(parseQueryNumber(value)).toBe(number);
  });

  it.each(['', ' 1', '1 ', '0x10', '0b11', '0o7', '1e1', '+5', '.5', '5.', '1_0', 'Infinity', 'NaN', '1'.repeat(400)])('leaves %j as it came, for the type check to refuse', (value) => {
    expect(parseQueryNumber(value)).toBe(value);
  });

  it('leaves a repeated parameter (an array) and non-strings alone', () => {
    expect(parseQueryNumber(['1', '2'])).toEqual(['1', '2']);
    expect(parseQueryNumber(undefined)).toBeUndefined();
  });
});
