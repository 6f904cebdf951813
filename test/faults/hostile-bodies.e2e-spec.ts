/**
 * Fault: hostile request bodies against one running server process (`node dist/main.js`,
 * APP_ROLE=api), measured from outside: status and error envelope of each answer, the process still
 * alive, and its peak memory growth (VmHWM from /proc/<pid>/status, reset before each case with
 * `clear_refs`, minus the RSS at that moment). docs/trust/README.md: 401 before any body is read; inflated
 * bytes count against the route's limit (413); a CSV import stops at the row cap (422 `csv`);
 * lone surrogates are 422; peak growth < 300 MB for one request, < 600 MB for three at once.
 *
 * The server runs with a 2.5 GiB V8 heap limit so that a service that does parse these bodies fails
 * here quickly instead of taking the shared test machine's memory; a service that keeps the bounds
 * never comes near it. Each request has a 30 s deadline. A case after which the server is dead or
 * no longer answers fails on `alive`, and the next case starts a fresh server.
 */
import { createFaultTenant, jsonClient, rawRequest, type RawResponse } from '../helpers/faults-http.js';
import { emptyObjectsJson, gzipBomb, MiB, tinyRecordsCsvJson } from '../helpers/faults-payloads.js';
import { memoryOf, resetPeak, startService, type Service, useProcesses, db } from '../helpers/processes.js';

const ONE_REQUEST_BOUND = 300 * 1000 * 1000;
const THREE_REQUESTS_BOUND = 600 * 1000 * 1000;
const REQUEST_DEADLINE_MS = 30_000;

interface Answer {
  status: number | string;
  type?: string;
  field?: string;
}

describe('fault: hostile bodies', () => {
  useProcesses();
  let server: Service | undefined;
  let token: string;
  /** Inflates to exactly 64 MiB (the largest body any route may read): ~64 KB on the wire. */
  let bomb64: Buffer;
  /** Inflates to 65 MiB: over every route's limit. */
  let bomb65: Buffer;
  /** 64 MiB of `{"contacts":[{},{},…]}`, plain. */
  let plain64: Buffer;
  /** A JSON body just under 64 MiB whose `csv` holds ~22 million one-byte records. */
  let csv64: Buffer;

  const ensureServer = async (): Promise<Service> => {
    if (!server?.alive()) {
      server = await startService({
        role: 'api',
        nodeOptions: '--max-old-space-size=2560',
        env: { REDIS_PREFIX: `${process.env.REDIS_PREFIX}:hostile` },
      });
    }
    return server;
  };

  beforeAll(async () => {
    // The default plan (import_row_cap 100,000): enough rows to need the import route's full 64 MiB,
    // few enough that the CSV case stops after 100,001 rows.
    token = (await createFaultTenant(db, {}, 1_000_000)).token;
    plain64 = emptyObjectsJson(64 * MiB);
    bomb64 = gzipBomb(64 * MiB);
    bomb65 = gzipBomb(65 * MiB);
    csv64 = tinyRecordsCsvJson(64 * MiB);
    await ensureServer();
  }, 300_000);

  beforeEach(async () => {
    await ensureServer();
  }, 120_000);

  const send = (
    path: string,
    body: Buffer,
    options: { auth?: boolean; gzip?: boolean } = {},
  ): Promise<RawResponse> =>
    rawRequest(
      `${server!.url}/api/v1${path}`,
      'POST',
      {
        'content-type': 'application/json',
        ...(options.gzip ? { 'content-encoding': 'gzip' } : {}),
        ...(options.auth ? { authorization: `Bearer ${token}` } : {}),
      },
      body,
      REQUEST_DEADLINE_MS,
    );

  const answer = (r: PromiseSettledResult<RawResponse>): Answer => {
    if (r.status === 'rejected') return { status: String(r.reason) };
    const e = (r.value.json as { error?: { type?: string; field?: string } } | undefined)?.error;
    return { status: r.value.status, type: e?.type, ...(e?.field ? { field: e.field } : {}) };
  };

  /**
   * Runs the requests at once and returns their answers, the peak RSS growth (bytes) and whether the
   * server is alive and still answering afterwards.
   */
  const hostile = async (
    requests: Array<() => Promise<RawResponse>>,
  ): Promise<{ answers: Answer[]; growth: number; alive: boolean }> => {
    const s = server!;
    resetPeak(s.pid);
    const before = memoryOf(s.pid).rss;
    const settled = await Promise.allSettled(requests.map((r) => r()));
    const growth = s.alive() ? memoryOf(s.pid).peak - before : Number.POSITIVE_INFINITY;
    const live = s.alive()
      ? await jsonClient(s.url, undefined, 10_000)
          .get('/health/live')
          .then((r) => r.status === 200)
          .catch(() => false)
      : false;
    // A server that stopped answering is not used again: the next case gets a fresh one.
    if (!live) await s.kill('SIGKILL');
    return { answers: settled.map(answer), growth, alive: live };
  };

  /** Everything a case checks, in one object: a failure shows all of it (the growth measured included). */
  const verdict = (r: { answers: Answer[]; growth: number; alive: boolean }, bound: number) => ({
    answers: r.answers,
    alive: r.alive,
    peakGrowth:
      r.growth < bound
        ? `under ${bound / 1e6} MB`
        : `${Number.isFinite(r.growth) ? Math.round(r.growth / 1e6) : '(process gone)'} MB, over ${bound / 1e6} MB`,
  });
  const expected = (answers: Answer[], bound: number) => ({
    answers,
    alive: true,
    peakGrowth: `under ${bound / 1e6} MB`,
  });

  const unauthorized = { status: 401, type: 'authentication_failed' };
  const tooLarge = { status: 413, type: 'payload_too_large' };
  const csvRefused = { status: 422, type: 'validation_failed', field: 'csv' };

  it('an unauthenticated gzip bomb (64 KB inflating to 64 MiB of {} objects) → 401, memory flat', async () => {
    const r = await hostile([() => send('/contacts/import', bomb64, { gzip: true })]);
    expect(verdict(r, ONE_REQUEST_BOUND)).toEqual(expected([unauthorized], ONE_REQUEST_BOUND));
  }, 120_000);

  it('an unauthenticated 64 MiB plain body → 401, memory flat', async () => {
    const r = await hostile([() => send('/contacts/import', plain64)]);
    expect(verdict(r, ONE_REQUEST_BOUND)).toEqual(expected([unauthorized], ONE_REQUEST_BOUND));
  }, 120_000);

  it('an authenticated gzip bomb → 413 on an ordinary route and on the import route', async () => {
    const r = await hostile([
      () => send('/contacts', bomb64, { gzip: true, auth: true }),
      () => send('/contacts/import', bomb65, { gzip: true, auth: true }),
    ]);
    expect(verdict(r, THREE_REQUESTS_BOUND)).toEqual(expected([tooLarge, tooLarge], THREE_REQUESTS_BOUND));
  }, 120_000);

  it('an authenticated 64 MiB CSV of one-byte records → 422 field csv (parsing stops at the row cap)', async () => {
    const r = await hostile([() => send('/contacts/import', csv64, { auth: true })]);
    expect(verdict(r, ONE_REQUEST_BOUND)).toEqual(expected([csvRefused], ONE_REQUEST_BOUND));
  }, 120_000);

  it('a lone surrogate in a JSON string → 422 naming the field, never 500', async () => {
    const json = (text: string): Buffer => Buffer.from(text, 'utf8');
    const r = await hostile([
      () => send('/contacts', json('{"email":"\\ud800@example.com","first_name":"Sue"}'), { auth: true }),
      () => send('/contacts', json('{"email":"sue@example.com","first_name":"S\\udc00ue"}'), { auth: true }),
    ]);
    expect(verdict(r, ONE_REQUEST_BOUND)).toEqual(
      expected(
        [
          { status: 422, type: 'validation_failed', field: 'email' },
          { status: 422, type: 'validation_failed', field: 'first_name' },
        ],
        ONE_REQUEST_BOUND,
      ),
    );
  }, 60_000);

  it('three unauthenticated gzip bombs at once → three 401, process alive, growth < 600 MB', async () => {
    const r = await hostile([1, 2, 3].map(() => () => send('/contacts/import', bomb64, { gzip: true })));
    expect(verdict(r, THREE_REQUESTS_BOUND)).toEqual(
      expected([unauthorized, unauthorized, unauthorized], THREE_REQUESTS_BOUND),
    );
  }, 180_000);

  it('three authenticated hostile bodies at once (bomb, 64 MiB CSV, 64 MiB JSON) → 413/422/413, growth < 600 MB', async () => {
    const r = await hostile([
      () => send('/contacts/import', bomb65, { gzip: true, auth: true }),
      () => send('/contacts/import', csv64, { auth: true }),
      () => send('/contacts', plain64, { auth: true }),
    ]);
    expect(verdict(r, THREE_REQUESTS_BOUND)).toEqual(
      expected([tooLarge, csvRefused, tooLarge], THREE_REQUESTS_BOUND),
    );
  }, 180_000);
});
