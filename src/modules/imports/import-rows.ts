/**
 * Request-time parsing and normalisation of an import (pure functions, no I/O).
 *
 * Every data row becomes exactly one staged value (numbered 1.. in input order):
 * - a valid row: the normalised contact fields that were PROVIDED (an absent field never
 *   overwrites on update), always with `email`;
 * - `{_error: {field, message}}` for an invalid row (counted and listed, never aborts the batch);
 * - `{_dup: true}` for a repeated address after its first valid row (counted as skipped).
 * Marking duplicates here, once, keeps the job's counters exact across chunks and resumes.
 */
import { Parser as CsvParser } from 'csv-parse';
import { isEmail } from 'class-validator';
import { canonicalTimezone } from '../../common/time/time-zones.js';
import { CONTACT_STAGES } from '../contacts/entities/contact.entity.js';

export const TEXT_FIELDS = ['first_name', 'last_name', 'company', 'title', 'phone'] as const;
export const CONTACT_FIELDS = ['email', ...TEXT_FIELDS, 'timezone', 'stage', 'custom_fields'] as const;
const FIELD_SET: ReadonlySet<string> = new Set(CONTACT_FIELDS);
// The same limits as the contacts API (src/modules/contacts/contact-fields.ts).
export const MAX_CUSTOM_FIELDS = 50;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_TEXT_LENGTH = 255;
export const MAX_PHONE_LENGTH = 64;
export const MAX_CUSTOM_KEY_LENGTH = 100;
export const MAX_CUSTOM_VALUE_LENGTH = 2000;

type TextField = (typeof TEXT_FIELDS)[number];

export interface StagedContact {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  company?: string | null;
  title?: string | null;
  phone?: string | null;
  timezone?: string | null;
  stage?: string;
  /** A null value removes that key from an existing contact. */
  custom_fields?: Record<string, string | null>;
}

export interface RowProblem {
  field: string;
  message: string;
}

export type StagedRow = StagedContact | { _error: RowProblem } | { _dup: true };

export interface StagedImport {
  rows: StagedRow[];
  /** Rows that are valid and first for their address. */
  valid: number;
  invalid: number;
  duplicates: number;
}

/** A request-level problem (the whole request is refused with 422 naming `field`). */
export class ImportInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    // Messages may quote the caller's CSV; keep them storable (idempotency records are stored).
    super(shown(message, 300));
  }
}

/** Lone UTF-16 surrogates: PostgreSQL refuses them (and NUL) in jsonb and text. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const isStorable = (s: string): boolean => !s.includes('\u0000') && !LONE_SURROGATE.test(s);

/** A caller-chosen name shown back in an error: storable, and short. */
function shown(s: string, max = 120): string {
  const clean = s.replaceAll('\u0000', '').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
  if (clean.length <= max) return clean;
  return `${Array.from(clean).slice(0, max).join('')}…`; // by code point: never splits a pair
}

class RowError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(shown(message));
    this.field = shown(field);
  }
}

const ISEMAIL_OPTIONS = { require_tld: true, allow_display_name: false, allow_ip_domain: false };

/**
 * A strict subset of what validator's isEmail accepts with ISEMAIL_OPTIONS (plain dot-atom local
 * part, LDH labels, an alphabetic TLD), checked first because it is ~20x cheaper; anything it does
 * not match goes through isEmail itself, so the accepted set is exactly isEmail's.
 */
const SIMPLE_EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function isValidEmail(email: string): boolean {
  if (email.length > MAX_EMAIL_LENGTH) return false;
  if (SIMPLE_EMAIL.test(email) && email.indexOf('@') <= 64) return true;
  return isStorable(email) && isEmail(email, ISEMAIL_OPTIONS);
}

export function normaliseEmail(value: unknown): string {
  if (typeof value !== 'string') throw new RowError('email', 'email must be a string');
  const email = value.trim().toLowerCase();
  if (!email) throw new RowError('email', 'email is required');
  if (!isValidEmail(email)) {
    throw new RowError('email', 'email must be a valid email address');
  }
  return email;
}

function text(field: string, value: unknown, max = MAX_TEXT_LENGTH): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw new RowError(field, `${field} must be a string or null`);
  if (value.length > max) throw new RowError(field, `${field} must be at most ${max} characters`);
  if (!isStorable(value)) {
    throw new RowError(field, `${field} must be valid Unicode text without NUL characters`);
  }
  return value;
}

const hasControlCharacter = (s: string): boolean => {
  for (let i = 0; i < s.length; i += 1) if (s.charCodeAt(i) < 0x20) return true;
  return false;
};

function customFields(value: unknown, field = 'custom_fields'): Record<string, string | null> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RowError(field, 'custom_fields must be an object of string values');
  }
  const out: Record<string, string | null> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_CUSTOM_FIELDS) {
    throw new RowError(field, `custom_fields may have at most ${MAX_CUSTOM_FIELDS} keys`);
  }
  for (const [key, v] of entries) {
    const name = `custom_fields.${key}`;
    if (!key || key.length > MAX_CUSTOM_KEY_LENGTH || hasControlCharacter(key) || !isStorable(key)) {
      throw new RowError(
        name,
        `custom field names must be 1 to ${MAX_CUSTOM_KEY_LENGTH} printable characters`,
      );
    }
    if (v === null) {
      out[key] = null;
      continue;
    }
    if (typeof v !== 'string') throw new RowError(name, `${name} must be a string (or null to remove it)`);
    if (v.length > MAX_CUSTOM_VALUE_LENGTH) {
      throw new RowError(name, `${name} must be at most ${MAX_CUSTOM_VALUE_LENGTH} characters`);
    }
    if (!isStorable(v)) throw new RowError(name, `${name} must be valid Unicode text without NUL characters`);
    out[key] = v;
  }
  return out;
}

/** Normalises one JSON contact object; throws RowError naming the first bad field. */
export function normaliseContact(input: unknown): StagedContact {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new RowError('row', 'each contact must be a JSON object');
  }
  const row = input as Record<string, unknown>;
  for (const key in row) {
    if (!FIELD_SET.has(key)) {
      throw new RowError(key, `${key} is not a recognised field`);
    }
  }
  if (!('email' in row) || row.email === undefined || row.email === null) {
    throw new RowError('email', 'email is required');
  }
  const out: StagedContact = { email: normaliseEmail(row.email) };
  for (const field of TEXT_FIELDS) {
    if (row[field] !== undefined) {
      out[field as TextField] = text(
        field,
        row[field],
        field === 'phone' ? MAX_PHONE_LENGTH : MAX_TEXT_LENGTH,
      );
    }
  }
  if (row.timezone !== undefined) {
    if (row.timezone === null) {
      out.timezone = null;
    } else {
      const zone = typeof row.timezone === 'string' ? canonicalTimezone(row.timezone.trim()) : undefined;
      if (!zone) throw new RowError('timezone', 'timezone must be an IANA time zone name or null');
      out.timezone = zone;
    }
  }
  if (row.stage !== undefined) {
    if (typeof row.stage !== 'string' || !(CONTACT_STAGES as readonly string[]).includes(row.stage)) {
      throw new RowError('stage', `stage must be one of ${CONTACT_STAGES.join(', ')}`);
    }
    out.stage = row.stage;
  }
  if (row.custom_fields !== undefined && row.custom_fields !== null) {
    out.custom_fields = customFields(row.custom_fields);
  }
  return out;
}

/**
 * Normalises rows one at a time, in input order, and marks duplicates; keeps the counts. Lets the
 * request stream staged rows into PostgreSQL while it is still normalising the rest.
 */
export class RowStager {
  valid = 0;
  invalid = 0;
  duplicates = 0;
  private readonly seen = new Set<string>();

  /** The staged value of the next input row, or of a CSV row with a problem of its own. */
  stage(input: unknown, problem?: RowProblem): StagedRow {
    if (problem) {
      this.invalid += 1;
      return { _error: problem };
    }
    // A RowError never needs its stack: capturing one costs more than the row's whole check.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      const contact = normaliseContact(input);
      if (this.seen.has(contact.email)) {
        this.duplicates += 1;
        return { _dup: true };
      }
      this.seen.add(contact.email);
      this.valid += 1;
      return contact;
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      this.invalid += 1;
      return { _error: { field: err.field, message: err.message } };
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }
}

/** Normalises rows (JSON objects, or CSV rows) and marks duplicates. */
export function stageRows(inputs: Iterable<unknown>): StagedImport {
  const stager = new RowStager();
  const rows: StagedRow[] = [];
  for (const input of inputs) rows.push(stager.stage(input));
  return { rows, valid: stager.valid, invalid: stager.invalid, duplicates: stager.duplicates };
}

/** A CSV record longer than this (bytes) refuses the request (422 naming its line). */
export const MAX_CSV_RECORD_BYTES = 64 * 1024;

/** One data row of a CSV: the record mapped to contact fields, or a problem of the CSV itself. */
export type CsvRow = { record: Record<string, unknown> } | { problem: RowProblem };

const FIELD_ALIASES: Record<string, string> = {
  e_mail: 'email',
  email_address: 'email',
  firstname: 'first_name',
  lastname: 'last_name',
  time_zone: 'timezone',
};

/** Maps a header cell to a contact field, `custom_fields.<name>`, or a custom field named as written. */
function headerTarget(raw: string): { field: string } | { custom: string } {
  const name = raw.trim();
  const key = name.toLowerCase().replace(/[\s-]+/g, '_');
  const field = FIELD_ALIASES[key] ?? key;
  if (field !== 'custom_fields' && (CONTACT_FIELDS as readonly string[]).includes(field)) return { field };
  if (/^custom_fields\./i.test(name)) return { custom: name.slice('custom_fields.'.length) };
  return { custom: name };
}

/** csv-parse's push parser (the engine under its stream API): records come back synchronously. */
interface CsvEngine {
  parse(
    data: Buffer | undefined,
    end: boolean,
    push: (record: string[]) => void,
    close: () => void,
  ): Error | undefined;
  info: { lines: number };
}

/**
 * Streaming CSV reader (csv-parse's push parser): text goes in piece by piece, data rows come out
 * as soon as they are complete, so a CSV is never held as a whole table. The header row names
 * contact fields (case-insensitive, spaces or dashes as underscores), every other column goes to
 * custom_fields. Empty cells are "not provided". Blank lines are skipped and not counted as data
 * rows. A record over MAX_CSV_RECORD_BYTES, or CSV that does not parse, throws ImportInputError
 * ('csv') naming the line.
 */
export class CsvReader {
  private readonly engine: CsvEngine;
  private targets?: Array<{ field: string } | { custom: string }>;

  constructor() {
    const parser = new CsvParser({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      max_record_size: MAX_CSV_RECORD_BYTES,
    }) as unknown as { api: CsvEngine };
    this.engine = parser.api;
  }

  /** The data rows completed by this piece of text. */
  write(text: string): CsvRow[] {
    return this.run(Buffer.from(text, 'utf8'), false);
  }

  /** The last data rows; throws when the CSV has no header. */
  end(): CsvRow[] {
    const rows = this.run(undefined, true);
    if (!this.targets)
      throw new ImportInputError('csv', 'csv must start with a header row naming the columns');
    return rows;
  }

  private run(data: Buffer | undefined, end: boolean): CsvRow[] {
    const records: string[][] = [];
    const err = this.engine.parse(
      data,
      end,
      (r) => records.push(r),
      () => undefined,
    );
    const rows: CsvRow[] = [];
    for (const cells of records) {
      if (!this.targets) this.header(cells);
      else rows.push(this.row(cells));
    }
    if (err) {
      const code = (err as { code?: string }).code;
      if (code === 'CSV_MAX_RECORD_SIZE') {
        throw new ImportInputError(
          'csv',
          `csv record at line ${this.engine.info.lines} is larger than ${MAX_CSV_RECORD_BYTES / 1024} KiB`,
        );
      }
      throw new ImportInputError('csv', `csv could not be parsed: ${err.message.split('\n')[0]}`);
    }
    return rows;
  }

  private header(header: string[]): void {
    if (header.every((h) => h === '')) {
      throw new ImportInputError('csv', 'csv must start with a header row naming the columns');
    }
    const targets = header.map((h, i) => {
      if (!h) throw new ImportInputError('csv', `csv header column ${i + 1} is empty`);
      return headerTarget(h);
    });
    const names = targets.map((t) => ('field' in t ? t.field : `custom_fields.${t.custom}`));
    const dupe = names.find((n, i) => names.indexOf(n) !== i);
    if (dupe) throw new ImportInputError('csv', `csv header names ${dupe} more than once`);
    if (!names.includes('email')) throw new ImportInputError('csv', 'csv header must have an email column');
    this.targets = targets;
  }

  private row(cells: string[]): CsvRow {
    const targets = this.targets!;
    if (cells.length !== targets.length) {
      return {
        problem: {
          field: 'row',
          message: `row has ${cells.length} columns but the header has ${targets.length}`,
        },
      };
    }
    const record: Record<string, unknown> = {};
    let custom: Record<string, string> | undefined;
    for (let c = 0; c < cells.length; c += 1) {
      const value = cells[c];
      if (value === '') continue;
      const target = targets[c];
      if ('field' in target) {
        record[target.field] = value;
      } else {
        custom ??= {};
        custom[target.custom] = value;
      }
    }
    if (custom) record.custom_fields = custom;
    return { record };
  }
}

/** Every data row of a whole CSV text (tests, small inputs). */
export function readCsv(csv: string): CsvRow[] {
  const reader = new CsvReader();
  return [...reader.write(csv), ...reader.end()];
}
