import { Transform } from 'class-transformer';
import { IsOptional, ValidateBy } from 'class-validator';
import { parseQueryInt } from '@svc/platform';

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
