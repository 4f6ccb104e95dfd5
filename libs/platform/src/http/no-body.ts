import { Body, Injectable, PipeTransform } from '@nestjs/common';
import { invalidRequest } from '../errors/errors';

/**
 * Refuses a body on a route that takes none (unknown fields are refused: docs/decisions.md), as the
 * ValidationPipe's whitelist does for the routes with a DTO: a field is 400 `invalid_request` naming
 * it; anything but an object (an array, a number, a string) is 400 naming `body`. No body, an empty
 * body, `null` and `{}` are no body.
 */
@Injectable()
export class RefuseBodyPipe implements PipeTransform<unknown, undefined> {
  transform(value: unknown): undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw invalidRequest('This route takes no body: send none, or an empty JSON object', 'body');
    }
    const [field] = Object.keys(value);
    if (field !== undefined) throw invalidRequest(`property ${field} should not exist (this route takes no body)`, field);
    return undefined;
  }
}

/** The body parameter of a route that takes none: refused unless empty (see RefuseBodyPipe). */
export const NoBody = (): ParameterDecorator => Body(RefuseBodyPipe);
