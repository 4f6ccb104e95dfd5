import { Transform } from 'class-transformer';

/** Decimal digits with an optional minus sign: no `0x`/`0b`/`0o`, exponent, fraction, `+` or spaces. */
const DECIMAL_INTEGER = /^-?\d+$/;

/**
 * The number a query value spells in plain decimal digits, if it is a safe integer; anything else
 * (an empty value, `0x10`, `1e1`, ` 1`, `99999999999999999999`, a repeated parameter) is left as it
 * came, so the DTO's integer check refuses it instead of `Number()` reading it loosely (`Number('0x10')`
 * is 16, `Number('')` is 0).
 */
export function parseQueryInt(value: unknown): unknown {
  if (typeof value !== 'string' || !DECIMAL_INTEGER.test(value)) return value;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value;
}

/**
 * The transform of an integer query parameter (in place of `@Type(() => Number)`): decimal digits
 * become a number, anything else stays a string for `@IsInt()` to refuse (400 naming the parameter).
 */
export function QueryInt(): PropertyDecorator {
  return Transform(({ value }) => parseQueryInt(value));
}
