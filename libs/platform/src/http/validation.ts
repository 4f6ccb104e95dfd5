import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import type { ValidationArguments } from 'class-validator';

/** Constraint name of IsOptionalNonNull's null check; its message alone is reported for a null value. */
const NOT_NULL = 'isNotNull';

/**
 * class-validator checks of what a value is. When one of them fails, the value's other checks
 * (length, range, pattern) say nothing useful: `{"name": 123}` is "name must be a string", not
 * also "must be shorter than or equal to 120 characters".
 */
const TYPE_CHECKS = new Set(['isDefined', 'isString', 'isNumber', 'isInt', 'isBoolean', 'isArray', 'isObject', 'isEnum', 'isIn', 'isDate', 'isDateString', 'nestedValidation']);

/** Constraint name of the refusal of a field the DTO does not declare (forbidNonWhitelisted). */
const UNKNOWN_FIELD = 'whitelistValidation';

/** Property of an element's error under an array field (`items.0`). */
const ARRAY_INDEX = /^\d+$/;

/**
 * A declared field with no value where one is required: absent, or `null`. Its type and other checks
 * would only restate that ("each value in scopes must be a string; scopes must be an array"), so it
 * gets one message of its own. Not an unknown field (its value may be null too), nor an element of an
 * array (`[null]`: the field is there, the element is a bad value), nor an error with children (the
 * ValidationPipe drops the value of those: it is an object or an array, never missing).
 */
function requiredMessage(error: ValidationError, constraints: Record<string, string>): string | null {
  if (error.value !== null && error.value !== undefined) return null;
  if (!error.property || ARRAY_INDEX.test(error.property) || constraints[UNKNOWN_FIELD] || (error.children?.length ?? 0) > 0) return null;
  return error.value === null ? `${error.property} must not be null` : `${error.property} is required`;
}

function messagesOf(error: ValidationError): string[] {
  const constraints = error.constraints ?? {};
  if (error.value === null && constraints[NOT_NULL]) return [constraints[NOT_NULL]];
  const required = requiredMessage(error, constraints);
  if (required) return [required];
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

const NULL_ON_CREATE_MESSAGE = '$property must not be null (omit it for the default)';
const NULL_ON_UPDATE_MESSAGE = '$property must not be null (omit it to leave it unchanged)';

const createBodies = new WeakSet<object>();

/**
 * Marks a DTO as the body of a create: a POST, or a PUT that replaces the whole resource (any body
 * whose fields left out take their default rather than leaving something unchanged). Every
 * `IsOptionalNonNull()` field of the class, its own and those it inherits from a base shared with an
 * update, refuses `null` with "must not be null (omit it for the default)". Only the class it is on:
 * a subclass is a create only if marked too. This is the one way to give a create the create wording.
 */
export function CreateBody(): ClassDecorator {
  return (target) => {
    createBodies.add(target);
  };
}

function nullMessage(args?: ValidationArguments): string {
  const dto = args?.object?.constructor;
  return dto && createBodies.has(dto) ? NULL_ON_CREATE_MESSAGE : NULL_ON_UPDATE_MESSAGE;
}

/**
 * For optional fields that may be absent but not `null`: `null` is refused (400 naming the field)
 * instead of skipping the other checks as `@IsOptional()` does. The message follows the class: "omit
 * it for the default" on a `@CreateBody()` class, else (a partial update, PUT/PATCH where only the
 * fields sent change) "omit it to leave it unchanged". Use `@IsOptional()` only where null has a
 * meaning (e.g. "clear it").
 */
export function IsOptionalNonNull(): PropertyDecorator {
  // Required here, not at the top: this module is part of every service's bundle, and a service
  // without DTOs (the gateway) never loads class-validator (with validator and libphonenumber-js,
  // some 300 modules and 4 MB of memory).
  const { ValidateBy, ValidateIf } = require('class-validator') as typeof import('class-validator');
  const present = ValidateIf((_object: object, value: unknown) => value !== undefined);
  const notNull = ValidateBy({
    name: NOT_NULL,
    validator: {
      validate: (value: unknown) => value !== null,
      defaultMessage: nullMessage,
    },
  });
  return (target: object, key: string | symbol) => {
    present(target, key);
    notNull(target, key);
  };
}

/** The refusal of a body that is not a JSON object on a route whose body is a DTO. */
export const BODY_NOT_OBJECT_MESSAGE = 'The request body must be a JSON object';

const isJsonObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The path (`draft_policy.constructor`, `alerts.0.__proto__`) of the first field of a body or query,
 * at any depth, named like a member of `Object.prototype` (`constructor`, `__proto__`, `toString`,
 * ...). No DTO declares one, yet the whitelist lets them through: class-validator looks the name up
 * in a plain object of the DTO's fields, where it finds the prototype's member, and class-transformer
 * then drops the value, at the top level, in a nested DTO (a budget's `alerts`) and in a free-form
 * object (a policy simulation's `draft_policy`, a provider target's `headers`, a test delivery's
 * `payload`) alike. Such a field was ignored, not refused like any other unknown field. Walked
 * breadth first without recursion (a shallower field is named first), on DTO bodies only: the
 * proxy's bodies never reach a ValidationPipe (the gateway runs without one, and its routes take
 * no DTO).
 */
function prototypeNamedPath(value: unknown): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const nodes: object[] = [value as object];
  const paths: string[] = [''];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const prefix = paths[i];
    const visit = (key: string, child: unknown) => {
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        paths.push(prefix ? `${prefix}.${key}` : key);
      }
    };
    if (Array.isArray(node)) {
      node.forEach((child, index) => visit(String(index), child));
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key in Object.prototype) return prefix ? `${prefix}.${key}` : key;
      visit(key, (node as Record<string, unknown>)[key]);
    }
  }
  return undefined;
}

/**
 * The ValidationPipe, plus two checks it lacks: a route whose body is a DTO refuses a body that is
 * not a JSON object (`null`, an array, a string, a number) with 400 naming `body`. Left to the
 * ValidationPipe, `null` became `{}` (so a partial update answered 200 and changed nothing) and an
 * array was validated as an object with properties `0`, `1`, ... No body at all stays no body
 * (docs/decisions-platform.md "empty body"): a route that needs fields still names the first one missing.
 * And a field named like a member of `Object.prototype`, at any depth, is refused as unknown (`prototypeNamedPath`).
 */
class DtoValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const wholeBody = metadata.type === 'body' && metadata.data === undefined;
    if (wholeBody && value !== undefined && !isJsonObject(value) && this.toValidate(metadata)) {
      throw new BadRequestException({ message: BODY_NOT_OBJECT_MESSAGE, param: 'body' });
    }
    const wholeQuery = metadata.type === 'query' && metadata.data === undefined;
    const field = (wholeBody || wholeQuery) && this.toValidate(metadata) ? prototypeNamedPath(value) : undefined;
    if (field !== undefined) throw new BadRequestException({ message: `property ${field} should not exist`, param: field });
    return super.transform(value, metadata);
  }
}

/**
 * Validates DTOs at the edge: strips nothing silently (unknown fields are refused),
 * converts query strings to their declared types, names the first bad field as `param`, and
 * refuses a DTO body that is not a JSON object.
 */
export function createValidationPipe(): ValidationPipe {
  return new DtoValidationPipe({
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

/**
 * A field checked by a rule that states its own refusal: `problem(value)` is null for an acceptable
 * value, else a phrase to follow the field name ("must be in the future"). For rules shared by
 * several surfaces (each then refuses in its own error format, naming the field).
 */
export function Satisfies(name: string, problem: (value: unknown) => string | null): PropertyDecorator {
  const { ValidateBy } = require('class-validator') as typeof import('class-validator');
  return ValidateBy({
    name,
    validator: {
      validate: (value: unknown) => problem(value) === null,
      defaultMessage: (args?: ValidationArguments) => `$property ${problem(args?.value) ?? 'is invalid'}`,
    },
  });
}

/**
 * Characters a human-readable name must not hold: C0 controls (U+0000–U+001F, tab and line breaks
 * included), DEL and the C1 controls (U+007F–U+009F), the Unicode line and paragraph separators
 * (U+2028, U+2029), and the bidirectional embeddings, overrides (U+202A–U+202E) and isolates
 * (U+2066–U+2069). Names are shown in lists and logs, written to CSV exports and webhook payloads,
 * and a key's name becomes an agent name: such a character forges a line, breaks a row or a header,
 * or makes the text around it display in another order than it is stored ("Trojan Source"). The
 * left-to-right and right-to-left marks (U+200E, U+200F), which names in right-to-left scripts
 * need and which reorder nothing beyond themselves, stay allowed.
 */
export function isNameControlCharacter(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const NAME_CHARACTERS_REFUSED =
  'must not contain control characters, line breaks, line/paragraph separators or bidirectional embeddings, overrides and isolates ' +
  '(U+0000–U+001F, U+007F–U+009F, U+2028, U+2029, U+202A–U+202E, U+2066–U+2069)';

const TEXT_CHARACTERS_REFUSED =
  'must not contain control characters other than tab and line breaks, line/paragraph separators or bidirectional embeddings, overrides and isolates ' +
  '(U+0000–U+0008, U+000B, U+000C, U+000E–U+001F, U+007F–U+009F, U+2028, U+2029, U+202A–U+202E, U+2066–U+2069)';

/** Tab, line feed and carriage return: what a multi-line text may hold that a name may not. */
function isTextLayoutCharacter(code: number): boolean {
  return code === 0x09 || code === 0x0a || code === 0x0d;
}

function refusedCharacterProblem(value: unknown, allowLayout: boolean, refusal: string): string | null {
  if (typeof value !== 'string') return null;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (!isNameControlCharacter(code) || (allowLayout && isTextLayoutCharacter(code))) continue;
    const codePoint = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    return `${refusal}; found ${codePoint} at position ${i + 1}`;
  }
  return null;
}

/** Null for a string without those characters (and for a non-string: its type check answers), else the refusal. */
export function displayNameProblem(value: unknown): string | null {
  return refusedCharacterProblem(value, false, NAME_CHARACTERS_REFUSED);
}

/** As `displayNameProblem`, but tab and line breaks are allowed: for descriptions and reasons, which may run over lines. */
export function freeTextProblem(value: unknown): string | null {
  return refusedCharacterProblem(value, true, TEXT_CHARACTERS_REFUSED);
}

/**
 * A human-readable name or label that users set (API key, budget, organization, member, runner,
 * provider target, budget node, secret label): 400 naming the field, in the surface's format, when
 * it holds a control, line-breaking or bidirectional formatting character (`displayNameProblem`). Only input is checked: names stored before
 * the rule keep being listed and used as they are.
 */
export function IsDisplayName(): PropertyDecorator {
  return Satisfies('isDisplayName', displayNameProblem);
}

/**
 * A free text users set (an alias's or webhook's description, a rejection reason): as `IsDisplayName`,
 * except that tab, line feed and carriage return are allowed (`freeTextProblem`).
 */
export function IsFreeText(): PropertyDecorator {
  return Satisfies('isFreeText', freeTextProblem);
}
