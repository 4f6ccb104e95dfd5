import { BadRequestException } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsEmail, IsIn, IsInt, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import { BODY_NOT_OBJECT_MESSAGE, CreateBody, createValidationPipe, displayNameProblem, freeTextProblem, IsOptionalNonNull } from './validation';

class Item {
  @IsInt() @Min(0) n!: number;
}

class PatchDto {
  @IsOptionalNonNull() @IsString() @MaxLength(5) name?: string;
  @IsOptionalNonNull() @IsInt() @Min(1) limit?: number;
  @IsOptionalNonNull() @IsIn(['a', 'b']) type?: string;
  @IsOptionalNonNull() @IsBoolean() flag?: boolean;
  @IsOptionalNonNull() @IsArray() @ValidateNested({ each: true }) @Type(() => Item) items?: Item[];
  /** Null means "clear it" here. */
  @IsOptional() @IsString() note?: string | null;
}

/** Optional fields shared by a create and an update, as the admin DTOs do. */
class SharedFieldsDto {
  @IsOptionalNonNull() @IsBoolean() enabled?: boolean;
}

@CreateBody()
class CreateDto extends SharedFieldsDto {
  @IsString() @MaxLength(5) name!: string;
  @IsEmail() @MaxLength(320) email!: string;
  @IsArray() @IsString({ each: true }) scopes!: string[];
  @IsArray() @ArrayMaxSize(2) @ValidateNested({ each: true }) @Type(() => Item) items!: Item[];
  @IsOptionalNonNull() @IsInt() limit?: number;
}

class UpdateDto extends SharedFieldsDto {
  @IsOptionalNonNull() @IsString() name?: string;
}

/** Not marked: a subclass of a create is not a create by inheritance. */
class SubclassOfCreateDto extends CreateDto {}

class DefinedDto {
  @IsDefined() value!: unknown;
}

const pipe = createValidationPipe();
const validate = (body: unknown, metatype: new () => object = PatchDto) => pipe.transform(body, { type: 'body', metatype });
const refusal = async (body: unknown, metatype?: new () => object): Promise<{ message: string; param: string | null }> => {
  const error = await validate(body, metatype).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BadRequestException);
  return (error as BadRequestException).getResponse() as { message: string; param: string | null };
};

describe('IsOptionalNonNull', () => {
  it('accepts an absent field and a valid one', async () => {
    await expect(validate({})).resolves.toEqual({});
    await expect(validate({ name: 'x', limit: 2, type: 'a', flag: false, items: [{ n: 0 }] })).resolves.toMatchObject({ name: 'x', limit: 2, flag: false });
  });

  it.each(['name', 'limit', 'type', 'flag', 'items'])('refuses null for %s, naming the field with one message', async (field) => {
    const res = await refusal({ [field]: null });
    expect(res).toEqual({ message: `${field} must not be null (omit it to leave it unchanged)`, param: field });
  });

  it('still runs the other checks on a present value', async () => {
    expect(await refusal({ limit: 0 })).toMatchObject({ param: 'limit', message: expect.stringMatching(/limit must not be less than 1/) });
    expect(await refusal({ name: 'toolong' })).toMatchObject({ param: 'name' });
    expect(await refusal({ items: [{ n: -1 }] })).toMatchObject({ param: 'items.0.n' });
  });

  it('reports only the type check when a value has the wrong type; every failed check otherwise', async () => {
    expect(await refusal({ name: 123 })).toEqual({ message: 'name must be a string', param: 'name' });
    expect(await refusal({ limit: '5' })).toEqual({ message: 'limit must be an integer number', param: 'limit' });
    expect(await refusal({ name: 'toolong' })).toEqual({ message: 'name must be shorter than or equal to 5 characters', param: 'name' });
  });

  it('leaves @IsOptional() fields nullable', async () => {
    await expect(validate({ note: null })).resolves.toEqual({ note: null });
  });
});

describe('CreateBody', () => {
  const valid = { name: 'x', email: 'a@example.com', scopes: ['s'], items: [{ n: 1 }] };

  it.each(['enabled', 'limit'])('refuses null for %s of a create with the create wording, inherited fields too', async (field) => {
    expect(await refusal({ ...valid, [field]: null }, CreateDto)).toEqual({ message: `${field} must not be null (omit it for the default)`, param: field });
  });

  it('keeps the update wording on the update sharing the base, and on an unmarked subclass', async () => {
    expect(await refusal({ enabled: null }, UpdateDto)).toEqual({ message: 'enabled must not be null (omit it to leave it unchanged)', param: 'enabled' });
    expect(await refusal({ name: null }, UpdateDto)).toEqual({ message: 'name must not be null (omit it to leave it unchanged)', param: 'name' });
    expect(await refusal({ ...valid, enabled: null }, SubclassOfCreateDto)).toEqual({ message: 'enabled must not be null (omit it to leave it unchanged)', param: 'enabled' });
  });

  it('accepts the create with its optional fields left out', async () => {
    await expect(validate(valid, CreateDto)).resolves.toMatchObject(valid);
  });
});

describe('required fields', () => {
  const valid = { name: 'x', email: 'a@example.com', scopes: ['s'], items: [{ n: 1 }] };

  it.each(['name', 'email', 'scopes', 'items'])('says only "%s must not be null" for a required field sent as null', async (field) => {
    expect(await refusal({ ...valid, [field]: null }, CreateDto)).toEqual({ message: `${field} must not be null`, param: field });
  });

  it.each(['name', 'email', 'scopes', 'items'])('says only "%s is required" for a required field left out', async (field) => {
    const body: Record<string, unknown> = { ...valid };
    delete body[field];
    expect(await refusal(body, CreateDto)).toEqual({ message: `${field} is required`, param: field });
  });

  it('names every required field of an empty body once, in order, and a nested one', async () => {
    expect(await refusal({}, CreateDto)).toEqual({ message: 'name is required; email is required; scopes is required; items is required', param: 'name' });
    expect(await refusal(undefined, CreateDto)).toEqual({ message: 'name is required; email is required; scopes is required; items is required', param: 'name' });
    expect(await refusal({ ...valid, items: [{}] }, CreateDto)).toEqual({ message: 'n is required', param: 'items.0.n' });
    expect(await refusal({ ...valid, items: [{ n: null }] }, CreateDto)).toEqual({ message: 'n must not be null', param: 'items.0.n' });
    expect(await refusal({}, DefinedDto)).toEqual({ message: 'value is required', param: 'value' });
    expect(await refusal({ value: null }, DefinedDto)).toEqual({ message: 'value must not be null', param: 'value' });
  });

  it('keeps the checks of a present value, of a null array element and of an unknown null field', async () => {
    expect(await refusal({ ...valid, scopes: 'a' }, CreateDto)).toEqual({ message: 'scopes must be an array', param: 'scopes' });
    expect(await refusal({ ...valid, email: 'nope' }, CreateDto)).toEqual({ message: 'email must be an email', param: 'email' });
    expect(await refusal({ ...valid, items: [null] }, CreateDto)).toEqual({ message: 'each value in nested property items must be either object or array', param: 'items.0' });
    expect(await refusal({ ...valid, extra: null }, CreateDto)).toEqual({ message: 'property extra should not exist', param: 'extra' });
    // A field with errors of its own and of its elements: the ValidationPipe drops its value, yet it is there.
    expect(await refusal({ ...valid, items: [{ n: 1 }, { n: 2 }, {}] }, CreateDto)).toEqual({ message: 'items must contain no more than 2 elements; n is required', param: 'items' });
  });
});

describe('createValidationPipe: the body of a DTO route', () => {
  it.each([
    ['null', null],
    ['an empty array', []],
    ['an array of objects', [{ name: 'x' }]],
    ['a string', 'name'],
    ['a number', 5],
    ['a boolean', true],
  ])('refuses %s: the body must be a JSON object (400 naming body)', async (_what, body) => {
    expect(await refusal(body)).toEqual({ message: BODY_NOT_OBJECT_MESSAGE, param: 'body' });
  });

  it('leaves no body (undefined) to the field checks, as an empty object', async () => {
    await expect(validate(undefined)).resolves.toEqual({});
  });

  it('leaves bodies without a DTO alone (a plain object type, or none: the route checks them itself)', async () => {
    await expect(pipe.transform(null, { type: 'body', metatype: Object })).resolves.toBeNull();
    await expect(pipe.transform(null, { type: 'body', metatype: undefined })).resolves.toBeNull();
  });
});

describe('displayNameProblem', () => {
  it('refuses C0, DEL, C1, the line/paragraph separators and the bidirectional embeddings, overrides and isolates, naming the first one and its position', () => {
    const bidi = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    for (const code of [0x00, 0x09, 0x0a, 0x0d, 0x1f, 0x7f, 0x80, 0x85, 0x9f, 0x2028, 0x2029, ...bidi]) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      expect(displayNameProblem(`ab${String.fromCharCode(code)}c\n`)).toContain(`found U+${hex} at position 3`);
    }
  });

  it('accepts any other text, and leaves a non-string to the type check', () => {
    // The neighbours of the refused ranges, and the left-to-right/right-to-left marks that right-to-left names use.
    const names = ['ci pipeline', 'Équipe données', 'a\u00a0b', 'x\u2027y', 'x\u202fy', 'x\u2065y', 'x\u206ay', 'データ', 'bot 🚀', '', 'פרויקט\u200f 2', 'ops\u200eteam'];
    for (const name of names) expect([name, displayNameProblem(name)]).toEqual([name, null]);
    expect(displayNameProblem(5)).toBeNull();
  });
});

describe('freeTextProblem', () => {
  it('refuses what a name refuses except tab, line feed and carriage return', () => {
    const bidi = [0x202a, 0x202e, 0x2066, 0x2069];
    for (const code of [0x00, 0x08, 0x0b, 0x0c, 0x0e, 0x1b, 0x1f, 0x7f, 0x85, 0x9f, 0x2028, 0x2029, ...bidi]) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      expect(freeTextProblem(`ab${String.fromCharCode(code)}c\n`)).toContain(`found U+${hex} at position 3`);
    }
  });

  it('accepts multi-line text with tabs, and leaves a non-string to the type check', () => {
    for (const text of ['first line\nsecond line', 'windows\r\nline', 'a\tb', 'Équipe données 🚀', 'פרויקט\u200f 2']) {
      expect([text, freeTextProblem(text)]).toEqual([text, null]);
    }
    expect(freeTextProblem(null)).toBeNull();
  });
});
