/**
 * The one place that builds an inbox's imapflow options: server (host, port, TLS) from its sealed
 * IMAP settings, login from `imapAuthFor` (password or OAuth access token), and the limits every
 * connection of the service has (size caps, time-outs, IDLE timing).
 */
import type { ImapFlowOptions } from 'imapflow';
import { MiB } from '../../common/http/body-reader.js';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import { imapAuthFor } from '../inboxes/imap-auth.js';
import { openSettings } from '../inboxes/inbox-credentials.js';

/** Mail over this size is skipped unread. Same limit as `POST /inbound/{id}`. */
export const IMAP_MAX_MESSAGE_BYTES = 10 * MiB;

/** IDLE is restarted this often (a NAT or a server that drops silent connections never sees one idle longer). */
export const IMAP_MAX_IDLE_MS = 4 * 60_000;

export interface ImapTimeouts {
  /** Connecting, and waiting for the greeting, may take this long (IMAP_POLL_DEADLINE_SECONDS). */
  openMs: number;
}

/** imapflow options for `inbox` (throws when it has no IMAP settings or its login cannot be had). */
export async function imapConnectionOptions(inbox: Inbox, timeouts: ImapTimeouts): Promise<ImapFlowOptions> {
  if (!inbox.imapSealed) throw new Error('the inbox has no IMAP settings');
  const s = openSettings(inbox.imapSealed, inbox.id, 'imap');
  return {
    host: s.host,
    port: s.port,
    secure: s.secure,
    auth: await imapAuthFor(inbox),
    logger: false,
    connectionTimeout: timeouts.openMs,
    greetingTimeout: timeouts.openMs,
    // Longer than the IDLE restart, so a healthy idle connection is never timed out; a dead one is.
    socketTimeout: IMAP_MAX_IDLE_MS + 60_000,
    // IDLE starts as soon as a read is over (the reader issues its commands back to back).
    autoIdleDelay: 1000,
    maxIdleTime: IMAP_MAX_IDLE_MS,
    missingIdleCommand: 'NOOP',
    // A server cannot push more than one allowed mail (plus framing) into memory.
    maxLiteralSize: IMAP_MAX_MESSAGE_BYTES + 1,
    maxResponseSize: IMAP_MAX_MESSAGE_BYTES + 4 * MiB,
  };
}
