/**
 * A local Gmail API (https://developers.google.com/gmail/api/reference/rest) on 127.0.0.1, for the
 * mailbox each bearer token belongs to (`users/me`; tokens checked against the local OAuth server):
 *
 * - `POST /gmail/v1/users/me/messages/send` `{raw}` (base64url RFC 5322) → `{id, threadId, labelIds}`;
 *   the message is kept (`sent`) with the Message-ID it carried, or one of Gmail's own when
 *   `ownMessageIds` is set;
 * - `GET /gmail/v1/users/me/messages/{id}?format=raw|metadata|minimal`;
 * - `GET /gmail/v1/users/me/profile` → `{emailAddress, messagesTotal, threadsTotal, historyId}`;
 * - `GET /gmail/v1/users/me/history?startHistoryId&labelId&historyTypes&pageToken` → `{history:
 *   [{id, messages, messagesAdded: [{message}]}], nextPageToken?, historyId}`, `pageSize` records a
 *   page; 404 `NOT_FOUND` for a startHistoryId older than the mailbox's history (`expireHistory`);
 * - `GET /gmail/v1/users/me/messages?q=newer_than:Nd&labelIds=INBOX&pageToken` → `{messages:
 *   [{id, threadId}], nextPageToken?, resultSizeEstimate}`, newest first.
 *
 * Errors have Gmail's shape `{error: {code, message, errors: [{domain, reason, message}], status}}`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { freePort } from '../../src/config/embedded.js';
import {
  applyFailure,
  bearerOwner,
  readBody,
  sendJson,
  sleep,
  type FakeApiControls,
} from './fake-api-common.js';
import type { FakeOAuthServer } from './oauth-server.js';

interface GmailMessage {
  id: string;
  threadId: string;
  raw: Buffer;
  labelIds: string[];
  internalDate: number;
  historyId: number;
}

interface Mailbox {
  messages: Map<string, GmailMessage>;
  history: Array<{ id: number; messageId: string }>;
  /** history.list from an id below this answers 404. */
  expiredBefore: number;
}

export interface FakeGmail extends FakeApiControls {
  /** Messages sent by a mailbox, as the raw RFC 5322 text Gmail stored. */
  sent(email: string): string[];
  /** Puts a mail into a mailbox's INBOX (a new history record). Answers its Gmail id. */
  deliver(email: string, raw: string | Buffer, receivedAt?: Date): string;
  /** Forgets the mailbox's history so far: history.list from any earlier id answers 404. */
  expireHistory(email: string): void;
  /** When true, sends are stored under a Message-ID of Gmail's own (the sender's is replaced). */
  ownMessageIds: boolean;
  /** Records a page of history.list holds at most. */
  pageSize: number;
}

const gmailError = (status: number): unknown => {
  const map: Record<number, [string, string, string]> = {
    400: ['INVALID_ARGUMENT', 'invalidArgument', 'Invalid To header'],
    401: ['UNAUTHENTICATED', 'authError', 'Request had invalid authentication credentials.'],
    403: ['PERMISSION_DENIED', 'insufficientPermissions', 'Request had insufficient authentication scopes.'],
    404: ['NOT_FOUND', 'notFound', 'Requested entity was not found.'],
    429: ['RESOURCE_EXHAUSTED', 'rateLimitExceeded', 'User-rate limit exceeded.'],
    500: ['INTERNAL', 'backendError', 'Backend Error'],
    503: ['UNAVAILABLE', 'backendError', 'The service is currently unavailable.'],
  };
  const [status_, reason, message] = map[status] ?? ['UNKNOWN', 'unknown', 'error'];
  return {
    error: { code: status, message, errors: [{ domain: 'global', reason, message }], status: status_ },
  };
};

const id = (): string => randomBytes(8).toString('hex');

export async function startFakeGmail(oauth: FakeOAuthServer): Promise<FakeGmail> {
  const boxes = new Map<string, Mailbox>();
  const sentBy = new Map<string, string[]>();
  let historyCounter = 1000;
  const box = (email: string): Mailbox => {
    let b = boxes.get(email);
    if (!b) boxes.set(email, (b = { messages: new Map(), history: [], expiredBefore: 0 }));
    return b;
  };
  const port = await freePort();
  const state: FakeGmail = {
    url: `http://127.0.0.1:${port}`,
    failSends: [],
    failReads: [],
    unauthorizedNext: 0,
    latencyMs: 0,
    requests: [],
    hung: [],
    ownMessageIds: false,
    pageSize: 2,
    sent: (email) => sentBy.get(email) ?? [],
    deliver: (email, raw, receivedAt) => {
      const b = box(email);
      const m: GmailMessage = {
        id: id(),
        threadId: id(),
        raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw),
        labelIds: ['INBOX', 'UNREAD'],
        internalDate: (receivedAt ?? new Date()).getTime(),
        historyId: ++historyCounter,
      };
      b.messages.set(m.id, m);
      b.history.push({ id: m.historyId, messageId: m.id });
      return m.id;
    },
    expireHistory: (email) => {
      box(email).expiredBefore = ++historyCounter;
    },
    close: async () => {
      for (const r of state.hung) r.socket?.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', state.url);
      const path = decodeURIComponent(url.pathname);
      const email = bearerOwner(req, oauth);
      state.requests.push({ method: req.method ?? '', path, email, at: Date.now() });
      const body = req.method === 'POST' ? await readBody(req) : Buffer.alloc(0);
      if (state.latencyMs) await sleep(state.latencyMs);
      const refuse = req.method === 'POST' && state.unauthorizedNext > 0;
      if (refuse || !email) {
        if (refuse) state.unauthorizedNext -= 1;
        return sendJson(res, 401, gmailError(401), {
          'www-authenticate': 'Bearer realm="https://accounts.google.com/"',
        });
      }
      const me = '/gmail/v1/users/me';
      const b = box(email);
      if (req.method === 'POST' && path === `${me}/messages/send`) {
        if (applyFailure(state.failSends.shift(), res, state, gmailError)) {
          // A hang: Gmail got the message and sent it, but its answer never comes.
          const f = state.hung.at(-1);
          if (f === res) storeSent();
          return;
        }
        const m = storeSent();
        if (!m) return sendJson(res, 400, gmailError(400));
        return sendJson(res, 200, { id: m.id, threadId: m.threadId, labelIds: ['SENT'] });
      }
      if (req.method !== 'GET') return sendJson(res, 404, gmailError(404));
      if (applyFailure(state.failReads.shift(), res, state, gmailError)) return;
      if (path === `${me}/profile`) {
        return sendJson(res, 200, {
          emailAddress: email,
          messagesTotal: b.messages.size,
          threadsTotal: b.messages.size,
          historyId: String(historyCounter),
        });
      }
      if (path === `${me}/history`) {
        const start = Number(url.searchParams.get('startHistoryId'));
        if (!Number.isFinite(start) || start < b.expiredBefore) return sendJson(res, 404, gmailError(404));
        const after = Number(url.searchParams.get('pageToken') ?? start);
        const records = b.history.filter((h) => h.id > after);
        const page = records.slice(0, state.pageSize);
        const more = records.length > page.length;
        return sendJson(res, 200, {
          history: page.map((h) => {
            const m = b.messages.get(h.messageId)!;
            const ref = { id: m.id, threadId: m.threadId, labelIds: m.labelIds };
            return { id: String(h.id), messages: [ref], messagesAdded: [{ message: ref }] };
          }),
          ...(more ? { nextPageToken: String(page.at(-1)!.id) } : {}),
          historyId: String(historyCounter),
        });
      }
      if (path === `${me}/messages`) {
        const days = Number(/newer_than:(\d+)d/.exec(url.searchParams.get('q') ?? '')?.[1] ?? 3650);
        const since = Date.now() - days * 86_400_000;
        const all = [...b.messages.values()]
          .filter((m) => m.labelIds.includes('INBOX') && m.internalDate >= since)
          .sort((x, y) => y.internalDate - x.internalDate || y.historyId - x.historyId);
        const offset = Number(url.searchParams.get('pageToken') ?? 0);
        const page = all.slice(offset, offset + state.pageSize);
        return sendJson(res, 200, {
          ...(page.length ? { messages: page.map((m) => ({ id: m.id, threadId: m.threadId })) } : {}),
          ...(offset + page.length < all.length ? { nextPageToken: String(offset + page.length) } : {}),
          resultSizeEstimate: all.length,
        });
      }
      const one = new RegExp(`^${me}/messages/([^/]+)$`).exec(path);
      if (one) {
        const m = b.messages.get(one[1]);
        if (!m) return sendJson(res, 404, gmailError(404));
        const format = url.searchParams.get('format') ?? 'full';
        const base = {
          id: m.id,
          threadId: m.threadId,
          labelIds: m.labelIds,
          historyId: String(m.historyId),
          internalDate: String(m.internalDate),
          sizeEstimate: m.raw.length,
          snippet: '',
        };
        if (format === 'raw') return sendJson(res, 200, { ...base, raw: m.raw.toString('base64url') });
        const wanted = url.searchParams.getAll('metadataHeaders').map((h) => h.toLowerCase());
        const headers = headerLines(m.raw).filter(
          (h) => !wanted.length || wanted.includes(h.name.toLowerCase()),
        );
        return sendJson(res, 200, { ...base, payload: { mimeType: 'text/plain', headers } });
      }
      return sendJson(res, 404, gmailError(404));

      function storeSent(): GmailMessage | null {
        let raw: Buffer;
        try {
          const parsed = JSON.parse(body.toString('utf8')) as { raw?: string };
          if (typeof parsed.raw !== 'string' || !/^[A-Za-z0-9_-]*={0,2}$/.test(parsed.raw)) return null;
          raw = Buffer.from(parsed.raw, 'base64url');
        } catch {
          return null;
        }
        let text = raw.toString('utf8');
        if (state.ownMessageIds) {
          text = text.replace(/^Message-ID:.*$/im, `Message-ID: <CA${id()}@mail.gmail.com>`);
        }
        const m: GmailMessage = {
          id: id(),
          threadId: id(),
          raw: Buffer.from(text),
          labelIds: ['SENT'],
          internalDate: Date.now(),
          historyId: ++historyCounter,
        };
        b.messages.set(m.id, m);
        sentBy.set(email!, [...(sentBy.get(email!) ?? []), text]);
        return m;
      }
    })();
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return state;
}

/** The header fields of a raw message (unfolded), as Gmail's `payload.headers`. */
function headerLines(raw: Buffer): Array<{ name: string; value: string }> {
  const text = raw.toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  const head = (end >= 0 ? text.slice(0, end) : text).replace(/\r?\n[ \t]+/g, ' ');
  return head
    .split(/\r?\n/)
    .map((l) => /^([^:]+):\s*(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1], value: m[2] }));
}
