/**
 * The one contact upsert, set-based, for `POST /contacts`, `PATCH /contacts/{id}` and
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
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { validationException } from '../../common/http/validation.js';
import { Outbox } from '../events/outbox.js';
import { SuppressionStore } from '../suppressions/suppression-store.js';
import { canonicalTimezone, CUSTOM_FIELDS_MAX_KEYS, normalizeEmail } from './contact-fields.js';
import { contactFromRow, toContactView } from './contact.view.js';
import { ContactRowDto } from './dto/upsert-contact.dto.js';
import type { Contact, ContactSource, ContactStage } from './entities/contact.entity.js';
import { ContactWritesRepository } from './contact-writes.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

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

/** The one contact upsert (inject it; the contacts module exports it). */
@Injectable()
export class ContactUpsert {
  constructor(
    private readonly writes: ContactWritesRepository,
    private readonly suppressions: SuppressionStore,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Upserts `rows` into `workspaceId` inside the caller's transaction and answers one outcome per input
   * row, in input order. Rows must already be valid (`validateContactRow`). Set-based: two statements
   * per 1000 rows whatever the mix of new and existing contacts.
   */
  async upsert(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    rows: ContactUpsertRow[],
    options: UpsertOptions,
  ): Promise<UpsertOutcome[]> {
    const outcomes: UpsertOutcome[] = new Array<UpsertOutcome>(rows.length);
    if (rows.length === 0) return outcomes;
    await this.suppressions.lockShared(manager, workspaceId);
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
      const created = (await this.writes.insertMissing(workspaceId, payload, options.source, manager)).map(
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
        const merged = (
          await this.writes.mergeExisting(workspaceId, JSON.stringify(rest.map((u) => u.row)), manager)
        ).map(contactFromRow);
        for (const c of merged) outcomes[firstIndex.get(c.email)!] = { status: 'updated', contact: c };
      }
      const missing = rest.filter((u) => outcomes[u.index] === undefined);
      if (missing.length === 0) continue;
      const existing = (
        await this.writes.findByEmails(
          workspaceId,
          missing.map((u) => u.row.email),
          manager,
        )
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

    await this.outbox.recordMany(
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
