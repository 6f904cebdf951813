/**
 * Ids in paths and query strings, parsed by one rule (`parseId`): plain decimal digits without a
 * leading zero, 1..2^53-1. `0x10`, `1e3`, ` 1`, `1.0`, `+1`, `007` are not ids anywhere. A malformed
 * path id is indistinguishable from a missing one (404); a malformed id filter is 422 naming it.
 */
import { applyDecorators, Injectable, type PipeTransform } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, Max, Min } from 'class-validator';
import { ApiError } from './api-error.js';

const INT_RE = /^[1-9]\d{0,15}$/;

/** Ids are 64-bit in the database and JSON integers in the API: 1..2^53-1. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The id `value` spells, or undefined when it is not one (the only id parser of the API). */
export function parseId(value: unknown): number | undefined {
  if (typeof value !== 'string' || !INT_RE.test(value)) return undefined;
  const n = Number(value);
  return n <= MAX_ID ? n : undefined;
}

@Injectable()
export class IntIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    const id = parseId(value);
    if (id === undefined) throw ApiError.notFound();
    return id;
  }
}

/**
 * A positive integer id filter in a query string (`?campaign_id=12`), parsed by `parseId`; anything
 * else → 422 naming it. Optional unless `required`.
 */
export const QueryIdFilter = (
  name: string,
  options: { required?: boolean; description?: string; example?: number } = {},
): PropertyDecorator => {
  const message = `${name} must be a positive integer`;
  const { required, ...doc } = options;
  return applyDecorators(
    required ? ApiProperty({ minimum: 1, ...doc }) : ApiPropertyOptional({ minimum: 1, ...doc }),
    required ? IsDefined({ message: `${name} is required` }) : IsOptional(),
    Transform(({ value }: { value: unknown }) =>
      value === undefined ? value : (parseId(value) ?? Number.NaN),
    ),
    IsInt({ message }),
    Min(1, { message }),
    Max(MAX_ID, { message }),
  );
};

@Injectable()
export class UuidPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !UUID_RE.test(value)) throw ApiError.notFound();
    return value.toLowerCase();
  }
}

export const isUuid = (value: string): boolean => UUID_RE.test(value);
