import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

function flatten(errors: ValidationError[], prefix = ''): { path: string; messages: string[] }[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ path, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], path)];
  });
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
