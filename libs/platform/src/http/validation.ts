import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import type { ValidationOptions } from 'class-validator';

/** Constraint name of IsOptionalNonNull's null check; its message alone is reported for a null value. */
const NOT_NULL = 'isNotNull';

/**
 * class-validator checks of what a value is. When one of them fails, the value's other checks
 * (length, range, pattern) say nothing useful: `{"name": 123}` is "name must be a string", not
 * also "must be shorter than or equal to 120 characters".
 */
const TYPE_CHECKS = new Set(['isDefined', 'isString', 'isNumber', 'isInt', 'isBoolean', 'isArray', 'isObject', 'isEnum', 'isIn', 'isDate', 'isDateString', 'nestedValidation']);

function messagesOf(error: ValidationError): string[] {
  const constraints = error.constraints ?? {};
  if (error.value === null && constraints[NOT_NULL]) return [constraints[NOT_NULL]];
  const typeFailures = Object.keys(constraints).filter((name) => TYPE_CHECKS.has(name));
  return typeFailures.length > 0 ? typeFailures.map((name) => constraints[name]) : Object.values(constraints);
}

function flatten(errors: ValidationError[], prefix = ''): { path: string; messages: string[] }[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ path, messages: messagesOf(error) }] : [];
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

/**
 * Options of `IsOptionalNonNull` for optional fields of a create (a POST, or a PUT that replaces the
 * whole resource): left out, the field takes its default; `null` is refused, naming the field.
 */
export const NOT_NULL_ON_CREATE: ValidationOptions = { message: '$property must not be null (omit it for the default)' };

/**
 * For fields of partial updates (PUT/PATCH where only the fields sent change): the field may be
 * absent, but `null` is refused (400 naming the field) instead of skipping the other checks as
 * `@IsOptional()` does. Use `@IsOptional()` only where null has a meaning (e.g. "clear it").
 */
export function IsOptionalNonNull(options?: ValidationOptions): PropertyDecorator {
  // Required here, not at the top: this module is part of every service's bundle, and a service
  // without DTOs (the gateway) never loads class-validator (with validator and libphonenumber-js,
  // some 300 modules and 4 MB of memory).
  const { ValidateBy, ValidateIf } = require('class-validator') as typeof import('class-validator');
  const present = ValidateIf((_object: object, value: unknown) => value !== undefined, options);
  const notNull = ValidateBy(
    {
      name: NOT_NULL,
      validator: {
        validate: (value: unknown) => value !== null,
        defaultMessage: () => '$property must not be null (omit it to leave it unchanged)',
      },
    },
    options,
  );
  return (target: object, key: string | symbol) => {
    present(target, key);
    notNull(target, key);
  };
}

/**
 * Validates DTOs at the edge: strips nothing silently (unknown fields are refused),
 * converts query strings to their declared types, and names the first bad field as `param`.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => {
      const flat = flatten(errors);
      const message = flat.flatMap((f) => f.messages).join('; ') || 'Invalid request';
      return new BadRequestException({ message, param: flat[0]?.path ?? null });
    },
  });
}
