/** The contact as the API and the `contact.created` event show it. Never the entity. */
import { isoOfTimestamptz } from '../../database/timestamps.js';
import type {
  Contact,
  ContactSource,
  ContactStage,
  VerificationReason,
  VerificationStatus,
} from './entities/contact.entity.js';
import { asWorkspaceId } from '../../common/tenant/workspace-id.js';

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
  /** The contact whose `wrong_person` reply named this one (`source: referral`), else null. */
  referred_by_contact_id: number | null;
  /** The address verdict (CONTRACT §24); `checked_at` null while `pending`. */
  verification: VerificationView;
  created_at: string;
  updated_at: string;
}

export interface VerificationView {
  status: VerificationStatus;
  reasons: VerificationReason[];
  suggestion: string | null;
  checked_at: string | null;
}

/** A contact's fields (its workspace aside) with timestamps of type T: Date from the ORM, PostgreSQL's text from the list query. */
type ContactRecord<T> = Omit<
  Contact,
  | 'workspaceId'
  | 'createdAt'
  | 'updatedAt'
  | 'suppressedAt'
  | 'verificationCheckedAt'
  | 'verificationDueAt'
  | 'verificationBouncedAt'
> & {
  createdAt: T;
  updatedAt: T;
  suppressedAt: T | null;
  verificationCheckedAt: T | null;
};

const isoOfDate = (d: Date): string => d.toISOString();

export function toContactView(c: Contact): ContactView {
  return viewOf(c, isoOfDate);
}

function viewOf<T>(c: ContactRecord<T>, iso: (t: T) => string): ContactView {
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
        : { reason: c.suppressionReason, created_at: iso(c.suppressedAt ?? c.updatedAt) },
    source: c.source,
    referred_by_contact_id: c.referredByContactId === null ? null : Number(c.referredByContactId),
    verification: {
      status: c.verificationStatus ?? 'pending',
      reasons: c.verificationReasons ?? [],
      suggestion: c.verificationSuggestion ?? null,
      checked_at: c.verificationCheckedAt == null ? null : iso(c.verificationCheckedAt),
    },
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
  };
}

const dateOf = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

/** A raw `contacts` row (snake_case, as RETURNING * gives it) as an entity-shaped object. */
export function contactFromRow(row: Record<string, unknown>): Contact {
  return {
    ...recordOfRow(row, dateOf),
    workspaceId: asWorkspaceId(row.workspace_id as string),
    verificationDueAt: row.verification_due_at == null ? null : dateOf(row.verification_due_at),
    verificationBouncedAt: row.verification_bounced_at == null ? null : dateOf(row.verification_bounced_at),
  };
}

/**
 * The view straight from a row of the list query (timestamptz as PostgreSQL's text, pagination.ts
 * RawKeyed): the same fields and values as `toContactView(contactFromRow(row))` without Date values
 * in between.
 */
export function contactViewOfListRow(row: Record<string, unknown>): ContactView {
  return viewOf(
    recordOfRow(row, (v) => v as string),
    isoOfTimestamptz,
  );
}

function recordOfRow<T>(row: Record<string, unknown>, time: (v: unknown) => T): ContactRecord<T> {
  return {
    id: Number(row.id),
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
    referredByContactId: row.referred_by_contact_id == null ? null : Number(row.referred_by_contact_id),
    suppressionReason: (row.suppression_reason as string | null) ?? null,
    suppressedAt: row.suppressed_at == null ? null : time(row.suppressed_at),
    verificationStatus: (row.verification_status as VerificationStatus | undefined) ?? 'pending',
    verificationReasons: (row.verification_reasons as VerificationReason[] | null) ?? [],
    verificationSuggestion: (row.verification_suggestion as string | null) ?? null,
    verificationCheckedAt: row.verification_checked_at == null ? null : time(row.verification_checked_at),
    createdAt: time(row.created_at),
    updatedAt: time(row.updated_at),
  };
}
