/** The contact as the API and the `contact.created` event show it (CONTRACT §4). Never the entity. */
import { isoOfTimestamptz } from '../../database/timestamps.js';
import type { Contact, ContactSource, ContactStage } from './entities/contact.entity.js';

export interface ContactView {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
  timezone: string | null;
  custom_fields: Record<string, string>;
  stage: ContactStage;
  sendable: boolean;
  suppression: { reason: string; created_at: string } | null;
  source: ContactSource;
  created_at: string;
  updated_at: string;
}

export function toContactView(c: Contact): ContactView {
  return {
    id: c.id,
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    company: c.company,
    title: c.title,
    phone: c.phone,
    timezone: c.timezone,
    custom_fields: c.customFields ?? {},
    stage: c.stage,
    sendable: c.suppressionReason === null,
    suppression:
      c.suppressionReason === null
        ? null
        : {
            reason: c.suppressionReason,
            created_at: (c.suppressedAt ?? c.updatedAt).toISOString(),
          },
    source: c.source,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** A raw `contacts` row (snake_case, as RETURNING * gives it) as an entity-shaped object. */
export function contactFromRow(row: Record<string, unknown>): Contact {
  const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
  return {
    id: Number(row.id),
    workspaceId: row.workspace_id as string,
    email: row.email as string,
    firstName: (row.first_name as string | null) ?? null,
    lastName: (row.last_name as string | null) ?? null,
    company: (row.company as string | null) ?? null,
    title: (row.title as string | null) ?? null,
    phone: (row.phone as string | null) ?? null,
    timezone: (row.timezone as string | null) ?? null,
    customFields: (row.custom_fields as Record<string, string> | null) ?? {},
    stage: row.stage as ContactStage,
    source: row.source as ContactSource,
    suppressionReason: (row.suppression_reason as string | null) ?? null,
    suppressedAt: row.suppressed_at == null ? null : date(row.suppressed_at),
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

/**
 * The view straight from a row of the list query (snake_case, timestamptz as PostgreSQL's text,
 * pagination.ts RawKeyed): the same fields and values as `toContactView(contactFromRow(row))`
 * without the entity-shaped object or Date values in between.
 */
export function contactViewOfListRow(row: Record<string, unknown>): ContactView {
  const reason = (row.suppression_reason as string | null) ?? null;
  const updatedAt = isoOfTimestamptz(row.updated_at as string);
  return {
    id: Number(row.id),
    email: row.email as string,
    first_name: (row.first_name as string | null) ?? null,
    last_name: (row.last_name as string | null) ?? null,
    company: (row.company as string | null) ?? null,
    title: (row.title as string | null) ?? null,
    phone: (row.phone as string | null) ?? null,
    timezone: (row.timezone as string | null) ?? null,
    custom_fields: (row.custom_fields as Record<string, string> | null) ?? {},
    stage: row.stage as ContactStage,
    sendable: reason === null,
    suppression:
      reason === null
        ? null
        : {
            reason,
            created_at: row.suppressed_at == null ? updatedAt : isoOfTimestamptz(row.suppressed_at as string),
          },
    source: row.source as ContactSource,
    created_at: isoOfTimestamptz(row.created_at as string),
    updated_at: updatedAt,
  };
}
