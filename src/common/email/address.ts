/**
 * Email addresses as the service stores and compares them (contacts, suppressions, inbound mail):
 * normalised, validated, split into their domain, in TypeScript and in SQL. Shared by every module.
 */
import { isEmail } from 'class-validator';

export const EMAIL_MAX_LENGTH = 254;

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

/** The domain part of an address column in SQL (after the last `@`), matching `emailDomain()`. */
export const sqlDomainOf = (expr: string): string => `regexp_replace(${expr}, '^.*@', '')`;
