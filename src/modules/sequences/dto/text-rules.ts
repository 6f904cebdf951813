/**
 * Text that PostgreSQL can store: NUL characters are refused (422) instead of failing in the
 * database; lone UTF-16 surrogates, which jsonb refuses, become U+FFFD as they would in a text column.
 */
import { Transform } from 'class-transformer';
import { MAX_ID } from '../../../common/http/id-params.js';
import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';

export function NoNulCharacters(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'noNulCharacters',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !value.includes('\u0000'),
        defaultMessage: (args) => `${args?.property ?? 'value'} must not contain NUL characters`,
      },
    },
    options,
  );
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const wellFormed = (s: string): string => s.replace(LONE_SURROGATE, '\uFFFD');

/** Optional, but when present it may not be null (for fields whose column is NOT NULL). */
export const IsOptionalNotNull = (): PropertyDecorator => ValidateIf((_, value) => value !== undefined);

/**
 * Query ids: only plain decimal digits become numbers (`1e3`, `0x10`, ` 7` stay invalid), so the
 * validators that follow answer 422 for anything else.
 */
export const ToQueryId = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN,
  );

/** An optional positive integer id filter in a query string (`?campaign_id=12`); bad values → 422 naming it. */
export const QueryIdFilter = (name: string): PropertyDecorator => {
  const message = `${name} must be a positive integer`;
  return applyDecorators(
    ApiPropertyOptional({ minimum: 1 }),
    IsOptional(),
    ToQueryId(),
    IsInt({ message }),
    Min(1, { message }),
    Max(MAX_ID, { message }),
  );
};
