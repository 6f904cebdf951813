/**
 * The HTTP side of a delivery attempt: undici with keep-alive, one connection pool per
 * (origin, pinned address), so a connection only ever goes to the address that was checked.
 * TLS keeps SNI and certificate checks on the hostname. Redirects are never followed, the response
 * body is read up to 64 KiB, and the whole attempt has one deadline.
 */
import { setMaxListeners } from 'node:events';
import { Pool, type Dispatcher, type Pool as UndiciPool } from 'undici';
import type { CheckedTarget } from './target-guard.js';

export const MAX_RESPONSE_BYTES = 64 * 1024;
export const EXCERPT_CHARS = 200;

export const ERROR_CLASSES = [
  'http_status',
  'redirect',
  'timeout',
  'oversized_response',
  'connection',
  'tls',
  'blocked_target',
  'internal',
  'event_expired',
] as const;

export type ErrorClass = (typeof ERROR_CLASSES)[number];

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  errorClass: ErrorClass | null;
  durationMs: number;
  /** The first characters of the response body, for the delivery log. */
  excerpt: string | null;
}

interface PoolEntry {
  pool: UndiciPool;
  lastUsed: number;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/** A dns.lookup replacement that answers only the pre-validated address. */
function pinnedLookup(address: string, family: 4 | 6) {
  return (_hostname: string, options: { all?: boolean } | undefined, cb: LookupCallback): void => {
    if (options?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  };
}

function classify(err: unknown): { errorClass: ErrorClass; message: string } {
  const e = err as { code?: string; name?: string; message?: string };
  const code = e?.code ?? '';
  const name = e?.name ?? '';
  if (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'ETIMEDOUT'
  ) {
    return { errorClass: 'timeout', message: 'timeout' };
  }
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('CERT_') ||
    /certificate|ssl|tls/i.test(e?.message ?? '')
  ) {
    return { errorClass: 'tls', message: `TLS error (${code || 'handshake failed'})` };
  }
  if (code) return { errorClass: 'connection', message: `connection error (${code})` };
  return { errorClass: 'connection', message: 'connection error' };
}

/**
 * Attempt deadlines, shared: requests that start within the same 50 ms share one AbortController
 * that fires `timeoutMs` after the slot began (so a deadline is at most 50 ms early). One timer per
 * slot instead of one per request keeps the hot path light.
 */
class DeadlineSlots {
  private current: { signal: AbortSignal; until: number } | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly timeoutMs: number,
    private readonly slotMs = 50,
  ) {}

  signal(): AbortSignal {
    const now = Date.now();
    if (this.current && now < this.current.until) return this.current.signal;
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      controller.abort(new DOMException('webhook attempt timed out', 'TimeoutError'));
    }, this.timeoutMs);
    timer.unref();
    this.timers.add(timer);
    this.current = { signal: controller.signal, until: now + this.slotMs };
    return controller.signal;
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

export class WebhookHttpClient {
  private readonly pools = new Map<string, PoolEntry>();
  private readonly deadlines: DeadlineSlots;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly timeoutMs: number,
    private readonly connectionsPerPool = 64,
  ) {
    this.deadlines = new DeadlineSlots(timeoutMs);
    this.sweeper = setInterval(() => void this.sweep(60_000), 30_000);
    this.sweeper.unref();
  }

  private poolFor(target: CheckedTarget): UndiciPool {
    const key = `${target.url.origin}|${target.address ?? ''}`;
    const found = this.pools.get(key);
    if (found) {
      found.lastUsed = Date.now();
      return found.pool;
    }
    const connect: Record<string, unknown> = { timeout: this.timeoutMs };
    if (target.address && target.family) connect.lookup = pinnedLookup(target.address, target.family);
    const pool = new Pool(target.url.origin, {
      connections: this.connectionsPerPool,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connect: connect as UndiciPool.Options['connect'],
    });
    this.pools.set(key, { pool, lastUsed: Date.now() });
    return pool;
  }

  private async sweep(idleMs: number): Promise<void> {
    const now = Date.now();
    for (const [key, entry] of this.pools) {
      if (now - entry.lastUsed > idleMs) {
        this.pools.delete(key);
        await entry.pool.close().catch(() => undefined);
      }
    }
  }

  async post(target: CheckedTarget, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const started = performance.now();
    const done = (o: Omit<AttemptOutcome, 'durationMs'>): AttemptOutcome => ({
      ...o,
      durationMs: Math.round(performance.now() - started),
    });
    const signal = this.deadlines.signal();
    const path = `${target.url.pathname}${target.url.search}`;
    let res: Dispatcher.ResponseData;
    try {
      res = await this.poolFor(target).request({
        origin: target.url.origin,
        path,
        method: 'POST',
        headers,
        body,
        signal,
      });
    } catch (err) {
      const c = classify(err);
      return done({ ok: false, statusCode: null, error: c.message, errorClass: c.errorClass, excerpt: null });
    }
    const statusCode = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          res.body.destroy();
          return done({
            ok: false,
            statusCode,
            error: `oversized response (more than ${MAX_RESPONSE_BYTES} bytes)`,
            errorClass: 'oversized_response',
            excerpt: null,
          });
        }
        if (size <= EXCERPT_CHARS * 4) chunks.push(chunk);
      }
    } catch (err) {
      const c = classify(err);
      return done({ ok: false, statusCode, error: c.message, errorClass: c.errorClass, excerpt: null });
    }
    const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS) || null;
    if (statusCode >= 200 && statusCode < 300) {
      return done({ ok: true, statusCode, error: null, errorClass: null, excerpt });
    }
    if (statusCode >= 300 && statusCode < 400) {
      return done({ ok: false, statusCode, error: 'blocked redirect', errorClass: 'redirect', excerpt });
    }
    return done({ ok: false, statusCode, error: `HTTP ${statusCode}`, errorClass: 'http_status', excerpt });
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.deadlines.close();
    const entries = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(entries.map((e) => e.pool.destroy().catch(() => undefined)));
  }
}
