/**
 * The one contact upsert (CONTRACT §4), set-based, for `POST /contacts`, `PATCH /contacts/{id}` and
 * bulk imports. Keyed by the normalised email inside the workspace:
 *   1. `INSERT … SELECT … ON CONFLICT (workspace_id, email) DO NOTHING RETURNING *` inserts the rows
 *      that are new (the suppression columns copied from the list), atomically against concurrent
 *      upserts of the same address (the loser waits for the winner's commit and skips the row);
 *      rows go in email order, so two overlapping batches take their row locks in the same order;
 *   2. `UPDATE … FROM input` merges every other row: provided fields overwrite (null clears),
 *      absent fields are kept, `custom_fields` merge key by key (a null value removes a key),
 *      `updated_at` moves only when something changed.
 * `contact.created` is written to the outbox, in the same transaction, for inserted rows only.
 */
import type { EntityManager } from 'typeorm';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { validationException } from '../../common/http/validation.js';
import { recordEvents } from '../events/outbox.js';
import { lockSuppressionsShared, SUPPRESSION_LOOKUP_SQL } from '../suppressions/suppression-store.js';
import { canonicalTimezone, CUSTOM_FIELDS_MAX_KEYS, normalizeEmail } from './contact-fields.js';
import { contactFromRow, toContactView } from './contact-view.js';
import { ContactRowDto } from './dto/upsert-contact.dto.js';
import type { Contact, ContactSource, ContactStage } from './entities/contact.entity.js';
import { rowsOf } from '../../database/query-rows.js';

/**
 * One contact to upsert, already validated (see `validateContactRow`). A property that is absent is
 * left alone on merge; `null` clears it. `custom_fields` values of `null` remove that key.
 */
export interface ContactUpsertRow {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  company?: string | null;
  title?: string | null;
  phone?: string | null;
  timezone?: string | null;
  stage?: ContactStage;
  custom_fields?: Record<string, string | null>;
}

export interface UpsertOptions {
  /** Provenance stored on inserted rows (never changed by a merge). */
  source: ContactSource;
  /** false: existing contacts are left untouched (outcome `unchanged`). Default true. */
  updateExisting?: boolean;
}

export type UpsertOutcome =
  | { status: 'inserted' | 'updated' | 'unchanged'; contact: Contact }
  /** The same address appeared earlier in the batch; `contact` is that earlier row's result. */
  | { status: 'duplicate'; contact: Contact }
  /** The merge was refused (e.g. custom_fields would exceed 50 keys); nothing was written for it. */
  | { status: 'invalid'; field: string; message: string; contact: Contact };

/** Merged columns: SQL expression over `c` (current row) and `i.d` (input jsonb). */
const NULLABLE_COLUMNS = ['first_name', 'last_name', 'company', 'title', 'phone', 'timezone'] as const;
const MERGED: Array<[string, string]> = [
  ...NULLABLE_COLUMNS.map((col): [string, string] => [
    col,
    `CASE WHEN i.d ? '${col}' THEN i.d->>'${col}' ELSE c.${col} END`,
  ]),
  ['stage', `COALESCE(i.d->>'stage', c.stage)`],
  [
    'custom_fields',
    `CASE WHEN i.d ? 'custom_fields' THEN jsonb_strip_nulls(c.custom_fields || (i.d->'custom_fields')) ELSE c.custom_fields END`,
  ],
];

const INSERT_SQL = `
  WITH input AS (SELECT d FROM jsonb_array_elements($2::jsonb) AS t(d))
  INSERT INTO contacts (workspace_id, email, first_name, last_name, company, title, phone, timezone,
                        custom_fields, stage, source, suppression_reason, suppressed_at)
  SELECT $1, i.d->>'email', i.d->>'first_name', i.d->>'last_name', i.d->>'company', i.d->>'title',
         i.d->>'phone', i.d->>'timezone',
         jsonb_strip_nulls(COALESCE(i.d->'custom_fields', '{}'::jsonb)),
         COALESCE(i.d->>'stage', 'new'), $3, s.reason, s.created_at
  FROM input i
  LEFT JOIN LATERAL (${SUPPRESSION_LOOKUP_SQL('$1', "(i.d->>'email')")}) s ON true
  ORDER BY i.d->>'email'
  ON CONFLICT (workspace_id, email) DO NOTHING
  RETURNING *`;

const UPDATE_SQL = `
  WITH input AS (SELECT d FROM jsonb_array_elements($2::jsonb) AS t(d))
  UPDATE contacts c SET
    ${MERGED.map(([col, expr]) => `${col} = ${expr}`).join(',\n    ')},
    updated_at = CASE
      WHEN ROW(${MERGED.map(([, expr]) => expr).join(', ')})
           IS DISTINCT FROM ROW(${MERGED.map(([col]) => `c.${col}`).join(', ')})
      THEN now() ELSE c.updated_at END
  FROM input i
  WHERE c.workspace_id = $1 AND c.email = i.d->>'email'
    AND (SELECT count(*) FROM jsonb_object_keys(${MERGED[MERGED.length - 1][1]})) <= ${CUSTOM_FIELDS_MAX_KEYS}
  RETURNING c.*`;

const CHUNK = 1000;

/** Lone UTF-16 surrogates become U+FFFD (as they would in a text parameter); jsonb refuses them. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const wellFormed = <T>(v: T): T => (typeof v === 'string' ? (v.replace(LONE_SURROGATE, '\ufffd') as T) : v);

function normalizedRow(row: ContactUpsertRow): ContactUpsertRow {
  const out: ContactUpsertRow = { ...row, email: normalizeEmail(row.email) as string };
  if (typeof row.timezone === 'string') out.timezone = canonicalTimezone(row.timezone) ?? row.timezone;
  for (const key of Object.keys(out) as Array<keyof ContactUpsertRow>) {
    if (out[key] === undefined) delete out[key];
    else if (key !== 'custom_fields') (out as unknown as Record<string, unknown>)[key] = wellFormed(out[key]);
  }
  if (out.custom_fields) {
    out.custom_fields = Object.fromEntries(
      Object.entries(out.custom_fields).map(([k, v]) => [wellFormed(k), wellFormed(v)]),
    );
  }
  return out;
}

/**
 * Upserts `rows` into `workspaceId` inside the caller's transaction and answers one outcome per input
 * row, in input order. Rows must already be valid (`validateContactRow`). Set-based: two statements
 * per 1000 rows whatever the mix of new and existing contacts.
 */
export async function upsertContacts(
  manager: EntityManager,
  workspaceId: string,
  rows: ContactUpsertRow[],
  options: UpsertOptions,
): Promise<UpsertOutcome[]> {
  const outcomes: UpsertOutcome[] = new Array<UpsertOutcome>(rows.length);
  if (rows.length === 0) return outcomes;
  await lockSuppressionsShared(manager, workspaceId);
  const updateExisting = options.updateExisting ?? true;

  const firstIndex = new Map<string, number>();
  const unique: Array<{ index: number; row: ContactUpsertRow }> = [];
  rows.forEach((raw, index) => {
    const row = normalizedRow(raw);
    if (firstIndex.has(row.email)) return;
    firstIndex.set(row.email, index);
    unique.push({ index, row });
  });

  const inserted: Contact[] = [];
  for (let start = 0; start < unique.length; start += CHUNK) {
    const chunk = unique.slice(start, start + CHUNK);
    const payload = JSON.stringify(chunk.map((u) => u.row));
    const created = rowsOf(await manager.query(INSERT_SQL, [workspaceId, payload, options.source])).map(
      contactFromRow,
    );
    const createdEmails = new Set<string>();
    for (const c of created) {
      createdEmails.add(c.email);
      outcomes[firstIndex.get(c.email)!] = { status: 'inserted', contact: c };
      inserted.push(c);
    }
    const rest = chunk.filter((u) => !createdEmails.has(u.row.email));
    if (rest.length === 0) continue;
    if (updateExisting) {
      const merged = rowsOf(
        await manager.query(UPDATE_SQL, [workspaceId, JSON.stringify(rest.map((u) => u.row))]),
      ).map(contactFromRow);
      for (const c of merged) outcomes[firstIndex.get(c.email)!] = { status: 'updated', contact: c };
    }
    const missing = rest.filter((u) => outcomes[u.index] === undefined);
    if (missing.length === 0) continue;
    const existing = rowsOf(
      await manager.query(`SELECT * FROM contacts WHERE workspace_id = $1 AND email = ANY($2::text[])`, [
        workspaceId,
        missing.map((u) => u.row.email),
      ]),
    ).map(contactFromRow);
    const byEmail = new Map(existing.map((c) => [c.email, c]));
    for (const u of missing) {
      const contact = byEmail.get(u.row.email);
      if (!contact) throw new Error('contact upsert lost a row'); // contacts are never deleted
      outcomes[u.index] = updateExisting
        ? {
            status: 'invalid',
            field: 'custom_fields',
            message: `custom_fields may hold at most ${CUSTOM_FIELDS_MAX_KEYS} keys once merged`,
            contact,
          }
        : { status: 'unchanged', contact };
    }
  }

  rows.forEach((raw, index) => {
    if (outcomes[index] !== undefined) return;
    const first = outcomes[firstIndex.get(normalizeEmail(raw.email) as string)!];
    outcomes[index] = { status: 'duplicate', contact: first.contact };
  });

  await recordEvents(
    manager,
    inserted.map((c) => ({
      workspaceId,
      type: 'contact.created' as const,
      data: { contact: toContactView(c) },
      occurredAt: c.createdAt,
    })),
  );
  return outcomes;
}

const UPSERT_FIELDS = [
  'first_name',
  'last_name',
  'company',
  'title',
  'phone',
  'timezone',
  'stage',
  'custom_fields',
] as const;

/** The upsert row of `email` with the fields `body` provides (absent fields are left out, null kept). */
export function upsertRowOf(
  email: string,
  body: Partial<Record<(typeof UPSERT_FIELDS)[number], unknown>>,
): ContactUpsertRow {
  const row: ContactUpsertRow = { email };
  for (const key of UPSERT_FIELDS) {
    if (body[key] !== undefined) (row as unknown as Record<string, unknown>)[key] = body[key];
  }
  return row;
}

/**
 * Validates one untyped contact object (an import row, a CLI input) with the same rules as
 * `POST /contacts`, so every entry point accepts exactly the same contacts.
 */
export async function validateContactRow(
  raw: Record<string, unknown>,
): Promise<{ ok: true; row: ContactUpsertRow } | { ok: false; field: string; message: string }> {
  const dto = plainToInstance(ContactRowDto, raw);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length) {
    const err = validationException(errors).body.error;
    return { ok: false, field: err.field ?? 'body', message: err.message };
  }
  return { ok: true, row: upsertRowOf(dto.email, dto) };
}
