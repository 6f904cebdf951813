/**
 * Time zone names, one rule for the whole service: what is stored (the canonical IANA name) and how
 * zones are read (formatters), with memory that does not grow with what tenants send.
 *
 * `canonicalTimezone` maps any spelling of a tz database name to one name: case and links resolved
 * (`uS/EaStErN` → `America/New_York`, `etc/utc` → `UTC`), and the handful of zones ICU still calls by
 * a retired name get IANA's current one (`Asia/Calcutta` → `Asia/Kolkata`). Offsets and
 * abbreviations are not names (`+02:00`, `Z` → undefined). Contacts store this name (API, PATCH,
 * imports; migration CanonicalContactTimezones for older rows).
 *
 * Nothing a tenant sends reaches Intl: building an `Intl.DateTimeFormat` costs native memory that a
 * process does not give back (Node 20: tens of MB per 10,000, the same name or not), so the names are
 * a table built once per process, one Intl call per tz database name (the runtime's canonical names
 * and ZONE_LINKS, ~600), and a spelling is looked up in it, lower-cased. Formatters are kept by
 * canonical name, at most one per zone. One tenant sending 100,000 spellings costs 100,000 map
 * lookups (CONTRACT §21).
 */
import { ZONE_LINKS } from './zone-links.js';

/** A zone name's shape: letters first, `/`-separated parts; offsets and `Z` never match. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
const NAME_MAX_LENGTH = 64;

/** Formatters kept, by canonical name (the tz database has ~600 names, ~420 canonical). */
export const FORMATTERS_MAX = 1024;

/**
 * Zones ICU (Node 20) still resolves to a retired name, and IANA's current name for them. Applied only
 * when the runtime resolves the current name back to the retired one, so a newer ICU that already
 * answers the current name needs nothing from this table.
 */
const CURRENT_NAMES: Record<string, string> = {
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Asia/Rangoon': 'Asia/Yangon',
  'Europe/Kiev': 'Europe/Kyiv',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'America/Godthab': 'America/Nuuk',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Truk': 'Pacific/Chuuk',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Coral_Harbour': 'America/Atikokan',
};

/** A Map used as a least-recently-used cache of at most `max` entries. */
class Lru<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, value);
  }
}

const formatters = new Lru<Intl.DateTimeFormat>(FORMATTERS_MAX);

/** The runtime's own resolution of `name` (case, links), or undefined when it does not know it. */
function resolve(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

let byLowerCase: Map<string, string> | undefined;

/** Lower-cased tz database name → canonical IANA name, built on first use. */
function zoneTable(): Map<string, string> {
  if (byLowerCase) return byLowerCase;
  const table = new Map<string, string>();
  for (const name of new Set([...Intl.supportedValuesOf('timeZone'), ...ZONE_LINKS, 'UTC'])) {
    const resolved = resolve(name);
    if (resolved === undefined) continue;
    const current = CURRENT_NAMES[resolved];
    table.set(
      name.toLowerCase(),
      current !== undefined && resolve(current) === resolved ? current : resolved,
    );
  }
  byLowerCase = table;
  return table;
}

/**
 * The canonical IANA name of `value` (`uS/EaStErN` → `America/New_York`), or undefined when it is not
 * a tz database name.
 */
export function canonicalTimezone(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > NAME_MAX_LENGTH) return undefined;
  if (!ZONE_NAME.test(value)) return undefined;
  return zoneTable().get(value.toLowerCase());
}

/** True for a tz database name, in any spelling `canonicalTimezone` accepts. */
export function isTimezone(value: unknown): value is string {
  return canonicalTimezone(value) !== undefined;
}

/**
 * The weekday/hour/minute formatter of `timezone` (any accepted spelling; one formatter per canonical
 * name). Callers pass canonical contact zones (`sendingTimezone`) or a campaign's schedule zone; a
 * schedule saved before the table existed may name a zone only ICU knows (`PST`): it is formatted
 * as named, in the same bounded cache (schedules are validated against the table since, so such names
 * are a fixed, finite set). Throws RangeError for a name that is not a zone, as Intl does.
 */
export function zoneFormatter(timezone: string): Intl.DateTimeFormat {
  const key = canonicalTimezone(timezone) ?? timezone;
  let fmt = formatters.get(key);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: key,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(key, fmt);
  }
  return fmt;
}

/** How many names the table holds and how many formatters are kept (for tests and diagnostics). */
export function timezoneCacheSizes(): { names: number; formatters: number } {
  return { names: zoneTable().size, formatters: formatters.size };
}
