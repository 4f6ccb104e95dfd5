import { BadRequestException, Body, Injectable, PipeTransform } from '@nestjs/common';

/**
 * Refuses a body on a route that takes none (unknown fields are refused: docs/decisions.md), as the
 * ValidationPipe's whitelist does for the routes with a DTO, and in the same form, so each surface
 * renders it in its own format (gateway `invalid_request`, organization API `VALIDATION_ERROR` with
 * `details.param`): a field is a 400 naming it; anything but an object (an array, a number, a string)
 * is a 400 naming `body`. No body, an empty body, `null` and `{}` are no body.
 */
@Injectable()
export class RefuseBodyPipe implements PipeTransform<unknown, undefined> {
  transform(value: unknown): undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new BadRequestException({ message: 'This route takes no body: send none, or an empty JSON object', param: 'body' });
    }
    const [field] = Object.keys(value);
    if (field !== undefined) throw new BadRequestException({ message: `property ${field} should not exist (this route takes no body)`, param: field });
    return undefined;
  }
}

/** The body parameter of a route that takes none: refused unless empty (see RefuseBodyPipe). */
export const NoBody = (): ParameterDecorator => Body(RefuseBodyPipe);
