/**
 * What the local Gmail API and Graph servers (fake-gmail.ts, fake-graph.ts) share: bearer tokens
 * checked against the local OAuth server, failures queued by a test (an HTTP status with its
 * `Retry-After`, or a hang once the request body has arrived), a delay before each answer (a server
 * far away), and the requests seen.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeOAuthServer } from './oauth-server.js';

/** A failure for the next matching request: an answer, or no answer at all after reading the body. */
export type QueuedFailure = { status: number; retryAfter?: string; body?: unknown } | 'hang';

export interface FakeApiControls {
  url: string;
  /** Failures for the next sends, in order. */
  failSends: QueuedFailure[];
  /** Failures for the next reads (any GET), in order. */
  failReads: QueuedFailure[];
  /** The next this many sends (POST) are answered 401 whatever their token. */
  unauthorizedNext: number;
  /** Milliseconds before each answer. */
  latencyMs: number;
  /** Requests seen: method, path (decoded, no query) and the mailbox whose token it carried. */
  requests: Array<{ method: string; path: string; email: string | undefined; at: number }>;
  /** Connections held by a 'hang' (closed by `close`). */
  hung: ServerResponse[];
  close(): Promise<void>;
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(payload));
}

/** The mailbox a request's bearer token belongs to, or undefined (no, unknown or expired token). */
export function bearerOwner(req: IncomingMessage, oauth: FakeOAuthServer): string | undefined {
  const t = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  return t ? oauth.accessOwner(t) : undefined;
}

/**
 * Applies a queued failure: answers it (true), or for 'hang' keeps the connection open without an
 * answer (true). `errorBody` shapes the provider's error JSON for a status.
 */
export function applyFailure(
  f: QueuedFailure | undefined,
  res: ServerResponse,
  controls: FakeApiControls,
  errorBody: (status: number) => unknown,
): boolean {
  if (!f) return false;
  if (f === 'hang') {
    controls.hung.push(res);
    return true;
  }
  sendJson(res, f.status, f.body ?? errorBody(f.status), f.retryAfter ? { 'retry-after': f.retryAfter } : {});
  return true;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
