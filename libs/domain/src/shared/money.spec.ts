import { roundUsd } from './money';

describe('roundUsd', () => {
  it('removes float noise and keeps every digit of the amount down to 10 decimals', () => {
    // 968 input tokens of gpt-4o-mini at $0.15 per million: the audit's noisy product.
    expect((968 * 0.15) / 1e6).toBe(0.00014519999999999998);
    expect(roundUsd((968 * 0.15) / 1e6)).toBe(0.0001452);
    expect(String(roundUsd(0.1 + 0.2))).toBe('0.3');
    expect(roundUsd(0.0000123)).toBe(0.0000123);
    expect(roundUsd(0.00000000004)).toBe(0);
    expect(roundUsd(12345.12345678912)).toBe(12345.1234567891);
    expect(999_999.1 + 0.2).toBe(999_999.2999999999);
    expect(roundUsd(999_999.1 + 0.2)).toBe(999_999.3);
  });

  it('leaves sums to the arithmetic: 1,000 costs of $0.0000123 total $0.0123', () => {
    let sum = 0;
    for (let i = 0; i < 1000; i++) sum += 0.0000123;
    expect(sum).not.toBe(0.0123);
    expect(roundUsd(sum)).toBe(0.0123);
  });

  it('rounds to a documented precision when given one', () => {
    expect(roundUsd(0.0000014999, 6)).toBe(0.000001);
    expect(roundUsd(0.0000015, 6)).toBe(0.000002);
    expect(roundUsd(1.23456789, 6)).toBe(1.234568);
  });

  it('shows what is not a finite number, and negative zero, as 0', () => {
    expect(roundUsd(Number.POSITIVE_INFINITY)).toBe(0);
    expect(roundUsd(Number.NaN)).toBe(0);
    expect(Object.is(roundUsd(-0.00000000001), 0)).toBe(true);
  });
});
