/**
 * timestamptz values kept as PostgreSQL's text for hot list queries. The API shows timestamps as
 * ISO 8601 text (`Date.prototype.toISOString()`'s form); parsing each one into a Date (pg's default,
 * postgres-date) and formatting it back was a measurable share of a list page's CPU, 50 values on
 * every page of 25 contacts (docs/performance.md). For a UTC session, PostgreSQL's text already holds the ISO fields in
 * order, so rearranging the string gives the same answer.
 */
import pg from 'pg';

const TIMESTAMPTZ_OID = 1184;
const identity = (value: string): string => value;

/** pg `types` for one query: timestamptz comes back as text, every other type as usual. */
export const TIMESTAMPTZ_AS_TEXT = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') return identity;
    return (pg.types.getTypeParser as (oid: number, format?: string) => (value: string) => unknown)(
      oid,
      format,
    );
  },
};

const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (value: string) => Date;

/**
 * `toISOString()` of a timestamptz as PostgreSQL writes it (DateStyle ISO). The common case, a UTC
 * session and a four-digit year with at most millisecond precision (`2026-01-02 03:04:05.6+00`), is
 * rearranged as text; anything else (another session time zone, finer fractions, BC, years past
 * 9999) goes through the same Date parsing pg uses by default.
 */
export function isoOfTimestamptz(text: string): string {
  const n = text.length;
  if (
    (n === 22 || (n >= 24 && n <= 26)) &&
    text.charCodeAt(4) === 45 && // '-' after a four-digit year
    text.charCodeAt(10) === 32 && // ' ' between date and time
    text.endsWith('+00') &&
    (n === 22 || text.charCodeAt(19) === 46) // no fraction, or '.' and 1 to 3 digits
  ) {
    const fraction = n === 22 ? '000' : (text.slice(20, n - 3) + '000').slice(0, 3);
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`;
  }
  return parseTimestamptz(text).toISOString();
}
