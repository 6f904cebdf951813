/**
 * One HTTP request to a provider's mail API (Gmail API, Microsoft Graph), through undici, and what
 * its failure means (CONTRACT §25). Every request carries a deadline; a response's meaning is read
 * from its status:
 *
 * - 2xx: done;
 * - 401: the access token was refused (`unauthorized`: refreshed once by the caller);
 * - 429, 503, and Gmail's 403 `rateLimitExceeded` / `userRateLimitExceeded`: `throttled`, with the
 *   `Retry-After` the provider asked for (seconds or an HTTP date; 60 s when it named none);
 * - 404 / 410 where the caller asked for a checkpoint: `expired` (the caller decides);
 * - 502 / 504: the gateway did not hear back from the provider's backend (`gateway`);
 * - anything else: `refused`, with the provider's own error text.
 *
 * A request that failed without any answer is `no_answer`, and `bodySent` says whether its body had
 * started to flow: the body is handed to undici as a stream that undici reads only once the request
 * is being written on a connected socket, so an unread stream means the provider cannot have had it
 * (connection refused, DNS, TLS, a deadline before the socket was ready). A send in doubt is told
 * apart from one never made exactly as the SMTP path tells a drop after DATA from one before it.
 * Tokens never appear in an error.
 */
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';

/** A raw mail is read up to 10 MiB; as base64 in Gmail's JSON that is about 14 MiB. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** When a 429/503 names no Retry-After. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;
/** The longest wait a provider's Retry-After is honoured for (longer is capped). */
const MAX_RETRY_AFTER_SECONDS = 3600;

const agent = new Agent({
  keepAliveTimeout: 30_000,
  connections: 128,
  maxResponseSize: MAX_RESPONSE_BYTES,
  connect: { timeout: 10_000 },
});

export type ApiFailureKind = 'unauthorized' | 'throttled' | 'expired' | 'gateway' | 'refused' | 'no_answer';

export class ApiRequestError extends Error {
  constructor(
    readonly kind: ApiFailureKind,
    /** The HTTP status, null without an answer. */
    readonly status: number | null,
    message: string,
    /** For `throttled`: how long the provider asked to wait. */
    readonly retryAfterSeconds: number | null = null,
    /** For `no_answer`: whether the request's body had started to flow to the provider. */
    readonly bodySent = false,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface ApiRequest {
  method: 'GET' | 'POST';
  url: string;
  token: string;
  deadlineMs: number;
  body?: Buffer;
  contentType?: string;
  /** Extra request headers (Graph's `Prefer`). */
  headers?: Record<string, string>;
  /** Statuses that mean "checkpoint expired" for this request (Gmail history 404, Graph delta 410). */
  expiredOn?: number[];
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), bounded; null when absent. */
export function retryAfterSeconds(raw: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (!v) return null;
  const trimmed = v.trim();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) seconds = Number(trimmed);
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds));
}

/** The provider's error text (Gmail and Graph both answer `{error: {code, message, ...}}`), one line. */
function errorText(body: Buffer): { text: string; reasons: string[] } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as {
      error?: { code?: unknown; message?: unknown; status?: unknown; errors?: Array<{ reason?: unknown }> };
    };
    const e = parsed.error;
    if (e && typeof e === 'object') {
      const reasons = (e.errors ?? []).map((x) => String(x.reason ?? '')).filter(Boolean);
      const code = typeof e.code === 'string' ? e.code : typeof e.status === 'string' ? e.status : '';
      const message = typeof e.message === 'string' ? e.message : '';
      return { text: [code, message].filter(Boolean).join(': ').slice(0, 300), reasons };
    }
  } catch {
    // not JSON
  }
  return { text: body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200), reasons: [] };
}

/** Makes the request; resolves with a 2xx answer, else rejects with an ApiRequestError. */
export async function apiRequest(r: ApiRequest): Promise<ApiAnswer> {
  const stream = r.body ? Readable.from([r.body]) : undefined;
  let status: number;
  let headers: ApiAnswer['headers'];
  let body: Buffer;
  try {
    const res = await request(r.url, {
      dispatcher: agent,
      method: r.method,
      headers: {
        authorization: `Bearer ${r.token}`,
        accept: 'application/json',
        ...(r.body
          ? { 'content-type': r.contentType ?? 'application/json', 'content-length': String(r.body.length) }
          : {}),
        ...r.headers,
      },
      body: stream,
      signal: AbortSignal.timeout(r.deadlineMs),
      headersTimeout: r.deadlineMs,
      bodyTimeout: r.deadlineMs,
    });
    status = res.statusCode;
    headers = res.headers;
    body = Buffer.from(await res.body.arrayBuffer());
  } catch (err) {
    const code = (err as { code?: string; name?: string } | null)?.code ?? (err as Error)?.name ?? 'error';
    const bodySent = stream ? stream.readableDidRead : false;
    throw new ApiRequestError('no_answer', null, `no answer (${code})`, null, bodySent);
  }
  if (status >= 200 && status < 300) return { status, headers, body };
  const { text, reasons } = errorText(body);
  const what = `HTTP ${status}${text ? ` ${text}` : ''}`;
  if (status === 401) throw new ApiRequestError('unauthorized', status, what);
  const rateLimited =
    status === 403 && reasons.some((x) => x === 'rateLimitExceeded' || x === 'userRateLimitExceeded');
  if (status === 429 || status === 503 || rateLimited) {
    const wait = retryAfterSeconds(headers['retry-after']) ?? DEFAULT_RETRY_AFTER_SECONDS;
    throw new ApiRequestError('throttled', status, what, wait);
  }
  if (r.expiredOn?.includes(status)) throw new ApiRequestError('expired', status, what);
  if (status === 502 || status === 504) throw new ApiRequestError('gateway', status, what);
  throw new ApiRequestError('refused', status, what);
}

/** `base` followed by `version` unless it already ends with it (GMAIL_API_BASE_URL, GRAPH_API_BASE_URL). */
export function apiRoot(base: string, version: RegExp, append: string): string {
  return version.test(base) ? base : `${base}${append}`;
}
