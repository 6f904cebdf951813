/**
 * A typed client for the Outreach Sequencing Service API.
 *
 * `schema.d.ts` is generated from the repository's `openapi.json` by openapi-typescript (`npm run
 * sdk:generate`); this file adds only what the document cannot say: the bearer token on every call,
 * an error class for the service's error envelope, and iterators over cursor-paged lists. Requests
 * and responses are openapi-fetch's: `const { data, error, response } = await client.GET(path, init)`,
 * or `await unwrap(client.GET(path, init))` for the data or a thrown {@link ApiError}.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

/** The client: openapi-fetch's, typed by the document (`GET`, `POST`, `PATCH`, `DELETE`, `use`). */
export type OutreachClient = Client<paths>;

export interface ClientConfig {
  /** The service's origin, e.g. `http://localhost:3000`: the document's paths start with `/api/v1`. */
  baseUrl: string;
  /** A workspace key (`svc_sk_…`) or a provisioning key (`svc_pk_…`), sent as `Authorization: Bearer`. */
  token: string;
  /** A fetch to use instead of `globalThis.fetch` (a proxy, a retrying fetch, a test double). */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers sent with every request (a User-Agent, say). A request's own headers win. */
  headers?: Record<string, string>;
}

export function createClient(config: ClientConfig): OutreachClient {
  return createFetchClient<paths>({
    baseUrl: config.baseUrl,
    ...(config.fetch ? { fetch: config.fetch } : {}),
    headers: { ...config.headers, Authorization: `Bearer ${config.token}` },
  });
}

// ---- Errors ---------------------------------------------------------------------------------------

/** The service's error body, `{error: {type, message, field?}}` (docs/api.md lists the types). */
export interface ErrorEnvelope {
  error: { type: string; message: string; field?: string };
}

type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 422 | 429 | 500 | 503 | 'default';
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type ErrorBodiesOf<Op> = Op extends { responses: infer R }
  ? { [S in keyof R & ErrorStatus]: JsonOf<R[S]> }[keyof R & ErrorStatus]
  : never;
/** Every JSON error body the document declares, over all operations. */
export type DocumentedError = {
  [P in keyof paths]: { [M in keyof paths[P]]-?: ErrorBodiesOf<NonNullable<paths[P][M]>> }[keyof paths[P]];
}[keyof paths];
/** The error `type`s the document declares (`string` until it lists them as an enum). */
export type ErrorType = DocumentedError['error']['type'];
// Compile-time check, run by `npm run sdk:check`: if the document's error bodies stop matching the
// envelope that ApiError reads, the SDK no longer compiles.
type Assert<T extends true> = T;
type _EnvelopeMatchesDocument = Assert<[DocumentedError] extends [ErrorEnvelope] ? true : false>;

function isEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { type?: unknown }).type === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** A non-2xx answer. `type` and `field` come from the envelope (`http_error` for a body without one). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly type: ErrorType | 'http_error';
  /** The offending request field, dotted (`steps.0.body`), on validation errors. */
  readonly field: string | undefined;
  /** `X-Request-Id` of the failed request: quote it when asking the operator. */
  readonly requestId: string | null;
  /** Seconds to wait before retrying, from `Retry-After` (429, 503); null without one. */
  readonly retryAfter: number | null;
  /** The parsed body as received. */
  readonly body: unknown;

  constructor(response: Response, body: unknown) {
    const envelope = isEnvelope(body) ? body.error : undefined;
    super(envelope?.message ?? `HTTP ${response.status}`);
    this.status = response.status;
    this.type = (envelope?.type as ErrorType | undefined) ?? 'http_error';
    this.field = envelope?.field;
    this.requestId = response.headers.get('X-Request-Id');
    const retryAfter = Number(response.headers.get('Retry-After') ?? Number.NaN);
    this.retryAfter = Number.isFinite(retryAfter) ? retryAfter : null;
    this.body = body;
  }
}

/** Awaits an openapi-fetch call: its data on 2xx, else throws {@link ApiError}. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response, error);
  return data as T;
}

/** True when the answer is a stored one, replayed for a repeated `Idempotency-Key`. */
export const wasReplayed = (response: Response): boolean =>
  response.headers.get('Idempotent-Replayed') === 'true';

// ---- Cursor pages ---------------------------------------------------------------------------------

type GetOf<P extends keyof paths> = paths[P] extends { get: infer Op } ? Op : never;
type OkJson<Op> = Op extends { responses: { 200: infer R } } ? JsonOf<R> : never;
type ParametersOf<Op> = Op extends { parameters: infer X } ? X : never;

/** Paths whose GET answers a cursor page: `{data: [...], next_cursor, links, meta}`. */
export type ListPath = {
  [P in keyof paths]: OkJson<GetOf<P>> extends { data: unknown[]; next_cursor: string | null } ? P : never;
}[keyof paths];
/** One page of a list, as the document describes it. */
export type Page<P extends ListPath> = OkJson<GetOf<P>>;
/** One row of a list. */
export type Item<P extends ListPath> = Page<P> extends { data: Array<infer I> } ? I : never;

/** A list's filters (everything but `cursor`, which the iterator drives), and its path parameters. */
export type ListOptions<P extends ListPath> = {
  query?: Omit<NonNullable<ParametersOf<GetOf<P>> extends { query?: infer Q } ? Q : never>, 'cursor'>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
} & (ParametersOf<GetOf<P>> extends { path: infer X } ? { path: X } : { path?: never });
type ListArgs<P extends ListPath> =
  object extends ListOptions<P> ? [options?: ListOptions<P>] : [options: ListOptions<P>];

type LooseGet = (
  path: string,
  init: {
    params: { query: Record<string, unknown>; path?: unknown };
    headers?: Record<string, string>;
    signal?: AbortSignal;
  },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Every page of a list, first to last: follows `next_cursor` until it is null. Throws {@link ApiError}
 * when a page fails.
 *
 *     for await (const page of pages(client, '/api/v1/contacts', { query: { per_page: 100 } })) …
 */
export async function* pages<P extends ListPath>(
  client: OutreachClient,
  path: P,
  ...[options]: ListArgs<P>
): AsyncGenerator<Page<P>, void, undefined> {
  const get = client.GET as unknown as LooseGet;
  let cursor: string | null = null;
  do {
    const query: Record<string, unknown> = { ...options?.query, ...(cursor === null ? {} : { cursor }) };
    const page = await unwrap(
      get(path, {
        params: { query, path: options?.path },
        ...(options?.headers ? { headers: options.headers } : {}),
        ...(options?.signal ? { signal: options.signal } : {}),
      }),
    );
    yield page as Page<P>;
    const next = (page as { next_cursor: string | null }).next_cursor;
    if (next !== null && next === cursor) throw new Error(`${path}: the cursor did not advance`);
    cursor = next;
  } while (cursor !== null);
}

/** Every row of a list, page after page (see {@link pages}). */
export async function* items<P extends ListPath>(
  client: OutreachClient,
  path: P,
  ...args: ListArgs<P>
): AsyncGenerator<Item<P>, void, undefined> {
  for await (const page of pages(client, path, ...args)) {
    yield* (page as { data: Array<Item<P>> }).data;
  }
}
