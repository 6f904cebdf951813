/**
 * The plan's contact cap (max_contacts_per_workspace). Held by PostgreSQL itself:
 * statement triggers on `contacts` keep `workspace_contact_counts` exact and refuse, with SQLSTATE
 * PL001, any statement that would leave a workspace over its plan (migration 1795400200000). The
 * counter row is updated by every statement that inserts contacts, so concurrent creators (API,
 * imports, CLI) of one workspace serialise on it until they commit, and the last one to pass the
 * cap fails. A merge into an existing contact inserts nothing and takes no lock.
 */
import { ApiError } from '../../common/http/api-error.js';

/** The SQLSTATE the insert trigger raises when a statement would pass the cap. */
export const CONTACT_CAP_SQLSTATE = 'PL001';

export const isContactCapError = (err: unknown): boolean =>
  typeof err === 'object' &&
  err !== null &&
  ((err as { code?: unknown }).code === CONTACT_CAP_SQLSTATE ||
    (err as { driverError?: { code?: unknown } }).driverError?.code === CONTACT_CAP_SQLSTATE);

export function contactCapExceeded(): ApiError {
  return new ApiError(
    403,
    'plan_limit_exceeded',
    "The workspace has reached its plan's max_contacts_per_workspace; a new contact would pass it",
  );
}

/** Room left under the cap for `workspaceId` (negative when a lowered plan is already passed). */
export const ROOM_SQL = `
SELECT o.max_contacts_per_workspace - COALESCE(k.contacts, 0) AS room
FROM workspaces w JOIN organizations o ON o.id = w.organization_id
LEFT JOIN workspace_contact_counts k ON k.workspace_id = w.id
WHERE w.id = $1`;
