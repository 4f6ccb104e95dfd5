import { BadRequestException } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import { createValidationPipe, IsOptionalNonNull } from './validation';

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

const pipe = createValidationPipe();
const validate = (body: unknown) => pipe.transform(body, { type: 'body', metatype: PatchDto });
const refusal = async (body: unknown): Promise<{ message: string; param: string | null }> => {
  const error = await validate(body).then(
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
