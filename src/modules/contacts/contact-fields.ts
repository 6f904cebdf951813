/**
 * The rules of a contact's fields, in one place for the API, imports and the CLI:
 * email normalisation, IANA time zones, custom-field limits, and filter value parsers.
 */
import { type ValidationOptions } from 'class-validator';
import { EMAIL_MAX_LENGTH, emailDomain, isValidEmail, normalizeEmail } from '../../common/email/address.js';
import { isRealDate, parseTimestamp } from '../../common/time/dates.js';
import { Check } from '../../common/http/check.js';
import { canonicalTimezone } from '../../common/time/time-zones.js';

export const TEXT_FIELD_MAX_LENGTH = 255;
export const PHONE_MAX_LENGTH = 64;
export const CUSTOM_FIELDS_MAX_KEYS = 50;
export const CUSTOM_FIELD_KEY_MAX_LENGTH = 100;
export const CUSTOM_FIELD_VALUE_MAX_LENGTH = 2000;

/**
 * The IANA name to store for `value` (`uS/EaStErN` → `America/New_York`), or undefined when it is not
 * a time zone; offsets are refused. One rule for the API, PATCH, imports and the CLI:
 * common/time/time-zones.ts.
 */
export { canonicalTimezone };

/** Why a custom_fields value is unacceptable, or undefined when it is fine. Null values delete a key. */
export function customFieldsProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'custom_fields must be an object of string values';
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > CUSTOM_FIELDS_MAX_KEYS) {
    return `custom_fields may hold at most ${CUSTOM_FIELDS_MAX_KEYS} keys`;
  }
  for (const [key, v] of entries) {
    const hasControl = [...key].some((ch) => ch.charCodeAt(0) < 0x20);
    if (key.length < 1 || key.length > CUSTOM_FIELD_KEY_MAX_LENGTH || hasControl) {
      return `custom_fields keys must be 1 to ${CUSTOM_FIELD_KEY_MAX_LENGTH} printable characters`;
    }
    if (v === null) continue;
    if (typeof v !== 'string') return `custom_fields.${key} must be a string (or null to remove it)`;
    if (v.length > CUSTOM_FIELD_VALUE_MAX_LENGTH || v.includes('\u0000')) {
      return `custom_fields.${key} must be at most ${CUSTOM_FIELD_VALUE_MAX_LENGTH} characters`;
    }
  }
  return undefined;
}

export const IsCustomFields = (options?: ValidationOptions): PropertyDecorator =>
  Check(
    'isCustomFields',
    (value) => customFieldsProblem(value) === undefined,
    (_property, value) => customFieldsProblem(value) ?? 'custom_fields is invalid',
    options,
  );

export const IsIanaTimezone = (options?: ValidationOptions): PropertyDecorator =>
  Check(
    'isIanaTimezone',
    (value) => canonicalTimezone(value) !== undefined,
    (property) => `${property} must be an IANA time zone name or null`,
    options,
  );

/** Postgres rejects NUL bytes in text; refuse them at the edge instead of answering 500. */
export const HasNoNul = (options?: ValidationOptions): PropertyDecorator =>
  Check(
    'hasNoNul',
    (value) => typeof value !== 'string' || !value.includes('\u0000'),
    (property) => `${property} must not contain NUL characters`,
    options,
  );

export { EMAIL_MAX_LENGTH, emailDomain, isRealDate, isValidEmail, normalizeEmail, parseTimestamp };
