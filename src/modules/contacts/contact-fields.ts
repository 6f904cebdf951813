/**
 * The rules of a contact's fields, in one place for the API, imports and the CLI:
 * email normalisation, IANA time zones, custom-field limits, and filter value parsers.
 */
import { isEmail, type ValidationOptions } from 'class-validator';
import { Check } from '../../common/http/check.js';
import { canonicalTimezone } from '../../common/time/time-zones.js';

export const EMAIL_MAX_LENGTH = 254;
export const TEXT_FIELD_MAX_LENGTH = 255;
export const PHONE_MAX_LENGTH = 64;
export const CUSTOM_FIELDS_MAX_KEYS = 50;
export const CUSTOM_FIELD_KEY_MAX_LENGTH = 100;
export const CUSTOM_FIELD_VALUE_MAX_LENGTH = 2000;

/** Trimmed and lower-cased; non-strings pass through untouched so validation can reject them. */
export function normalizeEmail<T>(value: T): T | string {
  return typeof value === 'string' ? value.trim().toLowerCase() : value;
}

/** True for a normalised address the service accepts (RFC 5321 length, a dotted domain). */
export function isValidEmail(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= EMAIL_MAX_LENGTH &&
    isEmail(value, { require_tld: true, allow_display_name: false, allow_ip_domain: false })
  );
}

export const emailDomain = (email: string): string => email.slice(email.lastIndexOf('@') + 1);

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

const TIMESTAMP_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/**
 * A filter instant: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time with `Z` or an offset.
 * Impossible dates (`2026-02-30`) and years outside 1..9999 are refused (undefined).
 */
export function parseTimestamp(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TIMESTAMP_RE.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m;
  const year = Number(y);
  if (year < 1 || !isRealDate(year, Number(mo), Number(d))) return undefined;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) return undefined;
  const iso = h === undefined ? `${y}-${mo}-${d}T00:00:00Z` : value.replace(' ', 'T');
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  const date = new Date(ms);
  const outYear = date.getUTCFullYear();
  return outYear >= 1 && outYear <= 9999 ? date : undefined;
}

export function isRealDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const probe = new Date(Date.UTC(2000, month - 1, day));
  probe.setUTCFullYear(year);
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}
