/**
 * How an inbox logs in to its IMAP server, in one place, so that OAuth inboxes plug in without
 * touching the connection code: `imapAuthFor(inbox)` answers `{ user, pass }` for a password inbox
 * (its sealed IMAP settings) and `{ user, accessToken }` (imapflow's XOAUTH2 / OAUTHBEARER) for an
 * inbox an access-token provider recognises. The OAuth work registers that provider once at start-up
 * (`registerImapAccessTokenProvider`); it owns token refresh, and is asked again at every login, so
 * a refreshed token is used by the next connection.
 */
import type { Inbox } from './entities/inbox.entity.js';
import { openSettings } from './inbox-credentials.js';

export type ImapAuth = { user: string; pass: string } | { user: string; accessToken: string };

/**
 * Answers the inbox's current OAuth login (`{ user, accessToken }`), or null when the inbox is not
 * an OAuth inbox (then its sealed password is used). May refresh the token; throws when it cannot.
 */
export type ImapAccessTokenProvider = (inbox: Inbox) => Promise<{ user: string; accessToken: string } | null>;

let accessTokenProvider: ImapAccessTokenProvider | null = null;

/** Installs the OAuth access-token provider (one per process; the last registration wins). */
export function registerImapAccessTokenProvider(provider: ImapAccessTokenProvider | null): void {
  accessTokenProvider = provider;
}

/** How `inbox` logs in to IMAP now: an access token when the provider gives one, else its password. */
export async function imapAuthFor(inbox: Inbox): Promise<ImapAuth> {
  const oauth = accessTokenProvider ? await accessTokenProvider(inbox) : null;
  if (oauth) return { user: oauth.user, accessToken: oauth.accessToken };
  if (!inbox.imapSealed) throw new Error('the inbox has no IMAP settings');
  const s = openSettings(inbox.imapSealed, inbox.id, 'imap');
  return { user: s.user ?? '', pass: s.password ?? '' };
}
