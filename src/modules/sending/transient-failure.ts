/**
 * Which failures of mail ingestion are worth trying again (CONTRACT §12): a failure of the database
 * or of the way to it, not of the mail. Used by IMAP polling (the checkpoint stays before such a
 * mail) and by the inbound route (503, so the MTA delivers again).
 */
/** SQLSTATE classes that say "not now" rather than "never": connection, rollback, resources, operator, system. */
const TRANSIENT_SQLSTATE_CLASSES = new Set(['08', '40', '53', '57', '58']);
/** lock_not_available (lock_timeout), object_in_use, insufficient_privilege (an operator's grant change). */
const TRANSIENT_SQLSTATES = new Set(['55P03', '55006', '42501']);
const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** node-postgres and its pool report lost connections with these messages and no code. */
const TRANSIENT_MESSAGE =
  /connection terminated|terminating connection|timeout exceeded when trying to connect|connection error and is not queryable|not queryable|connection (?:is )?closed|server closed the connection/i;

/**
 * True when `err` is a failure of the database (or the way to it) rather than of the mail: trying the
 * same mail again later may succeed. Everything else (a mail PostgreSQL cannot store, a bug) is
 * permanent for that mail.
 */
export function isTransientFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = typeof e.driverError?.code === 'string' ? e.driverError.code : e.code;
  if (typeof code === 'string') {
    if (/^[0-9A-Z]{5}$/.test(code)) {
      return TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2)) || TRANSIENT_SQLSTATES.has(code);
    }
    if (TRANSIENT_NODE_CODES.has(code)) return true;
  }
  return typeof e.message === 'string' && TRANSIENT_MESSAGE.test(e.message);
}
