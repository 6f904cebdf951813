/**
 * Text that PostgreSQL can store: NUL characters are refused (422) instead of failing in the
 * database; lone UTF-16 surrogates, which jsonb refuses, become U+FFFD as they would in a text column.
 */
import { ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';

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
