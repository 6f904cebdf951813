import { Type } from 'class-transformer';
import { IsArray, IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { ApiError } from './api-error.js';
import { IsStorableText, ServiceValidationPipe, unstorableStringPath } from './validation.js';

class StepDto {
  @IsInt() @Min(1) position: number;
  @IsString() body: string;
}

class SequenceDto {
  @IsString() name: string;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => StepDto) steps?: StepDto[];
}

class NamedDto {
  @IsString() @IsStorableText() name: string;
}

class ListQueryDto {
  @IsOptional() @Type(() => Number) @IsInt() per_page?: number;
}

const pipe = new ServiceValidationPipe();
// async: a synchronous throw of the pipe becomes a rejection too.
const body = async (value: unknown): Promise<unknown> =>
  pipe.transform(value, { type: 'body', metatype: SequenceDto });
const query = async (value: unknown): Promise<unknown> =>
  pipe.transform(value, { type: 'query', metatype: ListQueryDto });

async function failure(p: Promise<unknown>): Promise<{ status: number; type: string; field?: string }> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    return { status: e.getStatus(), type: e.body.error.type, field: e.body.error.field };
  }
  throw new Error('expected a validation failure');
}

describe('ServiceValidationPipe', () => {
  it('names nested array items by 0-based index, dotted', async () => {
    const res = await failure(
      body({
        name: 'n',
        steps: [
          { position: 1, body: 'ok' },
          { position: 2, body: 5 },
        ],
      }),
    );
    expect(res).toEqual({ status: 422, type: 'validation_failed', field: 'steps.1.body' });
  });

  it('rejects unknown body fields, nested ones included, naming them', async () => {
    expect(await failure(body({ name: 'n', extra: 1 }))).toMatchObject({ field: 'extra' });
    expect(
      await failure(body({ name: 'n', steps: [{ position: 1, body: 'b', colour: 'x' }] })),
    ).toMatchObject({
      field: 'steps.0.colour',
    });
  });

  it('rejects a body that is not an object', async () => {
    for (const bad of [[], 'text', 5, true]) {
      expect(await failure(body(bad))).toMatchObject({ status: 422, field: 'body' });
    }
  });

  it('treats a missing body as an empty object, so required fields are named', async () => {
    expect(await failure(body(undefined))).toMatchObject({ field: 'name' });
  });

  it('ignores unknown query parameters but validates known ones', async () => {
    await expect(query({ per_page: '5', whatever: 'x' })).resolves.toEqual({ per_page: 5 });
    expect(await failure(query({ per_page: 'abc' }))).toMatchObject({ field: 'per_page' });
  });

  it('messages never echo the offending value', async () => {
    try {
      await body({ name: 'n', steps: [{ position: 'SECRET-VALUE', body: 'b' }] });
      throw new Error('expected a failure');
    } catch (err) {
      expect((err as ApiError).body.error.message).not.toContain('SECRET-VALUE');
      expect((err as ApiError).body.error.field).toBe('steps.0.position');
    }
  });
});

describe('unstorableStringPath', () => {
  it('finds NUL characters and unpaired surrogates in values and keys, with a dotted path', () => {
    expect(unstorableStringPath({ a: 'fine', b: ['ok', { c: 'x\u0000' }] })).toBe('b.1.c');
    expect(unstorableStringPath({ a: '\ud800' })).toBe('a');
    expect(unstorableStringPath({ a: 'x\udc00y' })).toBe('a');
    expect(unstorableStringPath({ a: { 'k\u0000': 1 } })).toBe('a');
    expect(unstorableStringPath('\u0000')).toBe('');
  });

  it('accepts well-formed text, emoji included, and non-strings', () => {
    expect(
      unstorableStringPath({ a: 'emoji \ud83d\ude00', b: [1, true, null], c: { d: 'é' } }),
    ).toBeUndefined();
    expect(unstorableStringPath(undefined)).toBeUndefined();
  });
});

describe('IsStorableText', () => {
  it('refuses NUL and unpaired surrogates with 422 naming the field', async () => {
    const named = async (value: unknown): Promise<unknown> =>
      pipe.transform(value, { type: 'body', metatype: NamedDto });
    expect(await failure(named({ name: 'a\u0000' }))).toMatchObject({ status: 422, field: 'name' });
    expect(await failure(named({ name: '\ud800' }))).toMatchObject({ status: 422, field: 'name' });
    await expect(named({ name: 'fine \ud83d\ude00' })).resolves.toEqual({ name: 'fine \ud83d\ude00' });
  });
});
