/**
 * Which failures of mail ingestion are worth trying again: a failure of the database
 * or of the way to it, not of the mail. Used by IMAP polling (the checkpoint stays before such a
 * mail) and by the inbound route (503, so the MTA delivers again).
 *
 * Built on the HTTP edge's classifier of an unreachable dependency (`isDependencyUnavailable`, one
 * list of network codes, SQLSTATEs and pg messages), plus the failures of this moment that are not
 * an outage: serialization and deadlock (class 40), operator intervention (57, e.g. a cancelled
 * statement), system errors (58), a lock timeout or object in use (55P03, 55006), and a grant
 * changed by an operator (42501).
 */
import { isDependencyUnavailable } from '../../common/http/error-mapping.js';

const RETRY_SQLSTATE = /^(40...|57...|58...|55P03|55006|42501)$/;
/** node-postgres reports some lost connections with these messages and no code. */
const RETRY_MESSAGE =
  /connection terminated|terminating connection|connection error and is not queryable|not queryable|connection (?:is )?closed|server closed the connection/i;

/**
 * True when `err` is a failure of the database (or the way to it) rather than of the mail: trying the
 * same mail again later may succeed. Everything else (a mail PostgreSQL cannot store, a bug) is
 * permanent for that mail.
 */
export function isTransientFailure(err: unknown): boolean {
  if (isDependencyUnavailable(err)) return true;
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = typeof e.driverError?.code === 'string' ? e.driverError.code : e.code;
  if (typeof code === 'string' && RETRY_SQLSTATE.test(code)) return true;
  return typeof e.message === 'string' && RETRY_MESSAGE.test(e.message);
}
