import { formatUsd, plainDecimal, roundUsd } from './money';

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

describe('formatUsd', () => {
  it('shows a dollar or more with cents, and a cent up to a dollar with up to 4 decimals', () => {
    expect(formatUsd(100)).toBe('$100.00');
    expect(formatUsd(10.2)).toBe('$10.20');
    expect(formatUsd(1)).toBe('$1.00');
    expect(formatUsd(0.25)).toBe('$0.25');
    expect(formatUsd(0.12)).toBe('$0.12');
    expect(formatUsd(0.0123)).toBe('$0.0123');
    expect(formatUsd(0.01)).toBe('$0.01');
    // Float noise does not change the text: 0.6 / 6 is 0.09999999999999999.
    expect(formatUsd(0.6 / 6)).toBe('$0.10');
    expect(formatUsd(0.9999999)).toBe('$1.00');
    expect(formatUsd(0)).toBe('$0.00');
  });

  it('shows amounts below a cent with up to 6 decimals', () => {
    expect(formatUsd(0.0042)).toBe('$0.0042');
    expect(formatUsd(0.001)).toBe('$0.001');
    expect(formatUsd(0.0005)).toBe('$0.0005');
    expect(formatUsd(0.000062)).toBe('$0.000062');
    expect(formatUsd(0.0012345)).toBe('$0.001234');
    expect(formatUsd(0.000001)).toBe('$0.000001');
    expect(formatUsd(0.0099999999)).toBe('$0.01');
  });

  it('keeps 3 significant digits below a millionth: an amount above 0 never reads as $0.00', () => {
    expect(formatUsd(1e-7)).toBe('$0.0000001');
    expect(formatUsd(0.00000025)).toBe('$0.00000025');
    expect(formatUsd(0.000000123456)).toBe('$0.000000123');
    expect(formatUsd(9.9999e-7)).toBe('$0.000001');
    expect(formatUsd(1e-12)).toBe('$0.000000000001');
    expect(formatUsd(Number.MIN_VALUE)).toBe('$5e-324');
    expect(formatUsd(1e-200)).toBe('$1e-200');
  });

  it('keeps the sign of a negative amount and shows what is not a number as it is', () => {
    expect(formatUsd(-0.5)).toBe('-$0.50');
    expect(formatUsd(-12.5)).toBe('-$12.50');
    expect(formatUsd(-1e-7)).toBe('-$0.0000001');
    expect(formatUsd(-0)).toBe('$0.00');
    expect(formatUsd(Number.NaN)).toBe('NaN');
    expect(formatUsd(Number.POSITIVE_INFINITY)).toBe('Infinity');
    expect(formatUsd(Number.NEGATIVE_INFINITY)).toBe('-Infinity');
  });
});

describe('plainDecimal', () => {
  it('writes small magnitudes without exponent form, exactly, and everything else as String does', () => {
    expect(plainDecimal(4e-7)).toBe('0.0000004');
    expect(plainDecimal(6e-8)).toBe('0.00000006');
    expect(plainDecimal(1.25e-7)).toBe('0.000000125');
    expect(plainDecimal(-3.5e-9)).toBe('-0.0000000035');
    expect(plainDecimal(0.000001)).toBe('0.000001');
    expect(plainDecimal(0)).toBe('0');
    expect(plainDecimal(12.5)).toBe('12.5');
    expect(plainDecimal(42)).toBe('42');
  });
});
