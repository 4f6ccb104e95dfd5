import { Transform } from 'class-transformer';
import { IsNumber } from 'class-validator';

/** Plain decimal notation: digits, an optional fraction, an optional minus sign; no `0x`/`0b`/`0o`, exponent, `+`, `_` or spaces. */
const DECIMAL_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * The number a query value spells in plain decimal notation (`1.5`, `007`), if finite; anything else
 * (the empty value, `0x10`, `1e1`, ` 1`, `.5`, `Infinity`, a repeated parameter) is left as it came,
 * so the type check refuses it instead of `Number()` reading it loosely (`Number('0x10')` is 16,
 * `Number('')` is 0). The integer parameters have their own rule (`parseQueryInt`).
 */
export function parseQueryNumber(value: unknown): unknown {
  if (typeof value !== 'string' || !DECIMAL_NUMBER.test(value)) return value;
  const number = Number(value);
  return Number.isFinite(number) ? number : value;
}

/**
 * A number query parameter that may have a fraction (in place of `@Type(() => Number)` and
 * `@IsNumber()`): plain decimal notation becomes a number, anything else is a 400 naming the parameter.
 * Range checks (`@Min`, `@Max`) go beside it; they speak only once the value is a number.
 */
export function QueryNumber(): PropertyDecorator {
  const transform = Transform(({ value }) => parseQueryNumber(value));
  const type = IsNumber({ allowNaN: false, allowInfinity: false }, { message: '$property must be a number in plain decimal notation (digits, an optional fraction)' });
  return (target: object, key: string | symbol) => {
    transform(target, key);
    type(target, key);
  };
}
