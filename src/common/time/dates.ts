/** Dates and instants as filters and fields accept them. */

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

/** The current UTC day as the SQL expression every daily counter uses (inboxes, campaigns, domains). */
export const UTC_TODAY = `(now() AT TIME ZONE 'UTC')::date`;
