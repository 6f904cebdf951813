/**
 * The Gmail API calls the service makes (https://developers.google.com/gmail/api/reference/rest),
 * for the mailbox the access token belongs to (`users/me`):
 *
 * - `users.messages.send` with the whole RFC 5322 message as base64url `raw`;
 * - `users.messages.get` (`format=metadata` for the Message-ID Gmail stored, `format=raw` to read);
 * - `users.getProfile` (the mailbox's current historyId, where reading starts);
 * - `users.history.list` from a stored historyId, INBOX additions only, paged; 404 when Gmail no
 *   longer has history that old (`expired`);
 * - `users.messages.list` of the INBOX for the last days, paged (the bounded re-read).
 */
import { appConfig } from '../../../config/app-config.js';
import { apiRequest, apiRoot } from './api-http.js';

const root = (): string => apiRoot(appConfig().mailProviders.google.apiBaseUrl, /\/gmail\/v1$/, '/gmail/v1');
const me = (): string => `${root()}/users/me`;

/** Reads of the mailbox give up after this long (a send has the engine's deadline). */
export const GMAIL_READ_DEADLINE_MS = 30_000;

const json = <T>(body: Buffer): T => JSON.parse(body.toString('utf8')) as T;

export interface GmailHistoryPage {
  /** Ids of messages added to the INBOX, oldest first. */
  added: string[];
  /** The id of the last history record of the page (a checkpoint that can be resumed from). */
  lastRecordId: string | null;
  nextPageToken: string | null;
  /** The mailbox's current historyId (the checkpoint once every page was read). */
  historyId: string;
}

export const gmail = {
  async send(token: string, raw: Buffer, deadlineMs: number): Promise<{ id: string; threadId?: string }> {
    const body = Buffer.from(JSON.stringify({ raw: raw.toString('base64url') }));
    const res = await apiRequest({ method: 'POST', url: `${me()}/messages/send`, token, body, deadlineMs });
    return json<{ id: string; threadId?: string }>(res.body);
  },

  /** The Message-ID header Gmail stored for a message (null when it has none). */
  async messageIdOf(token: string, id: string, deadlineMs = GMAIL_READ_DEADLINE_MS): Promise<string | null> {
    const url = `${me()}/messages/${encodeURIComponent(id)}?format=metadata&metadataHeaders=Message-ID`;
    const res = await apiRequest({ method: 'GET', url, token, deadlineMs });
    const headers = json<{ payload?: { headers?: Array<{ name?: string; value?: string }> } }>(res.body)
      .payload?.headers;
    const found = headers?.find((h) => h.name?.toLowerCase() === 'message-id')?.value?.trim();
    return found ? found : null;
  },

  async raw(token: string, id: string): Promise<Buffer> {
    const url = `${me()}/messages/${encodeURIComponent(id)}?format=raw`;
    const res = await apiRequest({ method: 'GET', url, token, deadlineMs: GMAIL_READ_DEADLINE_MS });
    const raw = json<{ raw?: string }>(res.body).raw;
    if (typeof raw !== 'string') throw new Error('gmail: messages.get answered no raw message');
    return Buffer.from(raw, 'base64url');
  },

  async historyId(token: string): Promise<string> {
    const res = await apiRequest({
      method: 'GET',
      url: `${me()}/profile`,
      token,
      deadlineMs: GMAIL_READ_DEADLINE_MS,
    });
    const id = json<{ historyId?: string | number }>(res.body).historyId;
    if (id === undefined || id === null) throw new Error('gmail: profile named no historyId');
    return String(id);
  },

  async history(token: string, startHistoryId: string, pageToken: string | null): Promise<GmailHistoryPage> {
    const q = new URLSearchParams({
      startHistoryId,
      historyTypes: 'messageAdded',
      labelId: 'INBOX',
      maxResults: '500',
    });
    if (pageToken) q.set('pageToken', pageToken);
    const res = await apiRequest({
      method: 'GET',
      url: `${me()}/history?${q}`,
      token,
      deadlineMs: GMAIL_READ_DEADLINE_MS,
      expiredOn: [404],
    });
    const page = json<{
      history?: Array<{
        id?: string | number;
        messagesAdded?: Array<{ message?: { id?: string; labelIds?: string[] } }>;
      }>;
      nextPageToken?: string;
      historyId?: string | number;
    }>(res.body);
    const added: string[] = [];
    let lastRecordId: string | null = null;
    for (const h of page.history ?? []) {
      if (h.id !== undefined) lastRecordId = String(h.id);
      for (const a of h.messagesAdded ?? []) {
        const id = a.message?.id;
        if (id && !added.includes(id)) added.push(id);
      }
    }
    return {
      added,
      lastRecordId,
      nextPageToken: page.nextPageToken ?? null,
      historyId: String(page.historyId ?? lastRecordId ?? startHistoryId),
    };
  },

  /** Ids of INBOX messages received in the last `days` days, newest first, one page. */
  async recent(
    token: string,
    days: number,
    pageToken: string | null,
  ): Promise<{ ids: string[]; nextPageToken: string | null }> {
    const q = new URLSearchParams({ q: `newer_than:${days}d`, labelIds: 'INBOX', maxResults: '500' });
    if (pageToken) q.set('pageToken', pageToken);
    const res = await apiRequest({
      method: 'GET',
      url: `${me()}/messages?${q}`,
      token,
      deadlineMs: GMAIL_READ_DEADLINE_MS,
    });
    const page = json<{ messages?: Array<{ id?: string }>; nextPageToken?: string }>(res.body);
    return {
      ids: (page.messages ?? []).map((m) => m.id).filter((x): x is string => typeof x === 'string'),
      nextPageToken: page.nextPageToken ?? null,
    };
  },
};
