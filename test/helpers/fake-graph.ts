/**
 * A local Microsoft Graph mail API (https://learn.microsoft.com/graph/api/resources/mail-api-overview)
 * on 127.0.0.1, for `/v1.0/users/{address}` (the bearer token, checked against the local OAuth server,
 * must belong to that address, else 403 `ErrorAccessDenied`):
 *
 * - `POST /users/{id}/sendMail` with `Content-Type: text/plain` and the MIME message base64 → 202
 *   (no body); anything else → 400 `ErrorMimeContentInvalidBase64String`;
 * - `GET /users/{id}/mailFolders('inbox')/messages/delta` (also `mailFolders/inbox`): a first round
 *   (optionally `$filter=receivedDateTime ge <ISO>`) pages `pageSize` messages by `@odata.nextLink`
 *   (`$skiptoken`) and ends with `@odata.deltaLink` (`$deltatoken`); a round from a delta token answers
 *   what arrived since; a token older than `expireDelta` answers 410 `SyncStateNotFound`;
 * - `GET /users/{id}/messages/{message id}/$value` → the MIME message.
 *
 * Errors have Graph's shape `{error: {code, message, innerError}}`; 429 carries `Retry-After`.
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

interface GraphMessage {
  id: string;
  seq: number;
  raw: Buffer;
  receivedAt: Date;
  internetMessageId: string | null;
}

interface Mailbox {
  inbox: GraphMessage[];
  /** Delta tokens below this answer 410. */
  expiredBefore: number;
}

export interface FakeGraph extends FakeApiControls {
  sent(email: string): string[];
  deliver(email: string, raw: string | Buffer, receivedAt?: Date): string;
  /** Delta tokens handed out so far for the mailbox are no longer known (410). */
  expireDelta(email: string): void;
  pageSize: number;
}

const graphError = (status: number): unknown => {
  const map: Record<number, [string, string]> = {
    400: ['ErrorInvalidRecipients', 'At least one recipient is not valid.'],
    401: ['InvalidAuthenticationToken', 'Access token validation failure.'],
    403: ['ErrorAccessDenied', 'Access is denied. Check credentials and try again.'],
    404: ['ErrorItemNotFound', 'The specified object was not found in the store.'],
    410: ['SyncStateNotFound', 'The sync state generation is not found.'],
    429: ['ApplicationThrottled', 'Application is over its MailboxConcurrency limit.'],
    503: ['ServiceUnavailable', 'The service is temporarily unavailable.'],
  };
  const [code, message] = map[status] ?? ['generalException', 'error'];
  return {
    error: {
      code,
      message,
      innerError: { date: new Date().toISOString(), 'request-id': randomBytes(8).toString('hex') },
    },
  };
};

export async function startFakeGraph(oauth: FakeOAuthServer): Promise<FakeGraph> {
  const boxes = new Map<string, Mailbox>();
  const sentBy = new Map<string, string[]>();
  const rounds = new Map<string, { ids: string[]; upTo: number }>();
  let seq = 0;
  const box = (email: string): Mailbox => {
    let b = boxes.get(email);
    if (!b) boxes.set(email, (b = { inbox: [], expiredBefore: 0 }));
    return b;
  };
  const port = await freePort();
  const state: FakeGraph = {
    url: `http://127.0.0.1:${port}`,
    failSends: [],
    failReads: [],
    unauthorizedNext: 0,
    latencyMs: 0,
    requests: [],
    hung: [],
    pageSize: 2,
    sent: (email) => sentBy.get(email) ?? [],
    deliver: (email, raw, receivedAt) => {
      const text = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      const m: GraphMessage = {
        id: `AAMk${randomBytes(12).toString('base64url')}`,
        seq: ++seq,
        raw: text,
        receivedAt: receivedAt ?? new Date(),
        internetMessageId: /^Message-ID:\s*(.+)$/im.exec(text.toString('utf8'))?.[1]?.trim() ?? null,
      };
      box(email).inbox.push(m);
      return m.id;
    },
    expireDelta: (email) => {
      box(email).expiredBefore = ++seq;
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
      const owner = bearerOwner(req, oauth);
      state.requests.push({ method: req.method ?? '', path, email: owner, at: Date.now() });
      const body = req.method === 'POST' ? await readBody(req) : Buffer.alloc(0);
      if (state.latencyMs) await sleep(state.latencyMs);
      const refuse = req.method === 'POST' && state.unauthorizedNext > 0;
      if (refuse || !owner) {
        if (refuse) state.unauthorizedNext -= 1;
        return sendJson(res, 401, graphError(401));
      }
      const m = /^\/v1\.0\/users\/([^/]+)(\/.*)$/.exec(path);
      if (!m) return sendJson(res, 404, graphError(404));
      const address = m[1].toLowerCase();
      const rest = m[2];
      if (address !== owner.toLowerCase()) return sendJson(res, 403, graphError(403));
      const b = box(address);
      const userUrl = `${state.url}/v1.0/users/${encodeURIComponent(address)}`;
      if (req.method === 'POST' && rest === '/sendMail') {
        const hangOrFail = state.failSends.shift();
        const decode = (): string | null => {
          if (!/^text\/plain/i.test(req.headers['content-type'] ?? '')) return null;
          const b64 = body.toString('ascii').replace(/\s+/g, '');
          if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return null;
          return Buffer.from(b64, 'base64').toString('utf8');
        };
        if (hangOrFail === 'hang') {
          // Exchange took the message and sent it; the answer never comes.
          const mime = decode();
          if (mime) sentBy.set(address, [...(sentBy.get(address) ?? []), mime]);
        }
        if (applyFailure(hangOrFail, res, state, graphError)) return;
        const mime = decode();
        if (!mime) {
          return sendJson(res, 400, {
            error: {
              code: 'ErrorMimeContentInvalidBase64String',
              message: 'Invalid base64 string for MIME content.',
            },
          });
        }
        sentBy.set(address, [...(sentBy.get(address) ?? []), mime]);
        res.writeHead(202, { 'content-length': '0' });
        return res.end();
      }
      if (req.method !== 'GET') return sendJson(res, 405, graphError(400));
      if (applyFailure(state.failReads.shift(), res, state, graphError)) return;
      if (/^\/mailFolders(\('inbox'\)|\/inbox)\/messages\/delta$/i.test(rest)) {
        const page = (ids: string[], upTo: number): void => {
          const now = ids.slice(0, state.pageSize);
          const left = ids.slice(state.pageSize);
          const value = now.map((id) => {
            const msg = b.inbox.find((x) => x.id === id)!;
            return {
              '@odata.type': '#microsoft.graph.message',
              id: msg.id,
              receivedDateTime: msg.receivedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
              internetMessageId: msg.internetMessageId,
            };
          });
          const link = `${userUrl}/mailFolders('inbox')/messages/delta`;
          if (left.length) {
            const skip = randomBytes(12).toString('hex');
            rounds.set(skip, { ids: left, upTo });
            return sendJson(res, 200, {
              '@odata.context': 'fake',
              value,
              '@odata.nextLink': `${link}?$skiptoken=${skip}`,
            });
          }
          return sendJson(res, 200, {
            '@odata.context': 'fake',
            value,
            '@odata.deltaLink': `${link}?$deltatoken=${upTo}`,
          });
        };
        const skip = url.searchParams.get('$skiptoken');
        if (skip) {
          const r = rounds.get(skip);
          if (!r) return sendJson(res, 410, graphError(410));
          rounds.delete(skip);
          return page(r.ids, r.upTo);
        }
        const token = url.searchParams.get('$deltatoken');
        if (token !== null) {
          const from = Number(token);
          if (!Number.isFinite(from) || from < b.expiredBefore) return sendJson(res, 410, graphError(410));
          return page(
            b.inbox.filter((x) => x.seq > from).map((x) => x.id),
            seq,
          );
        }
        const since = /receivedDateTime ge (\S+)/.exec(url.searchParams.get('$filter') ?? '')?.[1];
        const from = since ? Date.parse(since) : 0;
        return page(
          b.inbox.filter((x) => x.receivedAt.getTime() >= from).map((x) => x.id),
          seq,
        );
      }
      const value = /^\/messages\/([^/]+)\/\$value$/.exec(rest);
      if (value) {
        const msg = b.inbox.find((x) => x.id === value[1]);
        if (!msg) return sendJson(res, 404, graphError(404));
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(msg.raw);
      }
      return sendJson(res, 404, graphError(404));
    })();
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return state;
}
