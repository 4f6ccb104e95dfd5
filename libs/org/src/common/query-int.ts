import { Transform } from 'class-transformer';
import { IsOptional, ValidateBy } from 'class-validator';

/** Decimal digits with an optional minus sign: no `0x`/`0b`/`0o`, exponent, fraction, `+` or spaces. */
const DECIMAL_INTEGER = /^-?\d+$/;

/**
 * The number a query value spells in plain decimal digits, if it is a safe integer; anything else
 * (an empty value, `0x10`, `1e1`, `99999999999999999999`, a repeated parameter) is left as it came,
 * so the check below refuses it instead of `Number()` reading it loosely.
 */
export function parseQueryInt(value: unknown): unknown {
  if (typeof value !== 'string' || !DECIMAL_INTEGER.test(value)) return value;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value;
}

/**
 * An optional integer query parameter within `min`..`max` (default: the largest safe integer).
 * Absent means the default; any value sent, the empty one included, must be decimal digits within
 * the bounds, else 400 naming the parameter.
 */
export function IsQueryInt(min: number, max: number = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  const decorators = [
    IsOptional(),
    Transform(({ value }) => parseQueryInt(value)),
    ValidateBy({
      name: 'isQueryInt',
      validator: {
        validate: (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max,
        defaultMessage: () => `$property must be an integer from ${min} to ${max}, in decimal digits`,
      },
    }),
  ];
  return (target: object, key: string | symbol) => {
    for (const decorate of decorators) decorate(target, key);
  };
}
