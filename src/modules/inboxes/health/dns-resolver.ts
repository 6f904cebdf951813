/**
 * The resolver sending-domain health reads DNS with: the system's, or DNS_SERVERS (ip[:port]) so
 * tests can point it at a local server. One resolver per check, with the check's deadline: a query
 * times out after 1.5 s (two tries), and when the deadline passes every query still waiting, and
 * every later one, fails at once with `ETIMEOUT` (read as "try again", never as an answer).
 */
import { promises as dns } from 'node:dns';
import { appConfig } from '../../../config/app-config.js';

/** `(name, type)` as mailauth expects it: node's `resolve` answers (TXT as string[][]). */
export type DnsResolve = (name: string, type: string) => Promise<unknown>;

export interface HealthResolver {
  resolve: DnsResolve;
  resolve4(name: string): Promise<string[]>;
  resolveMx(name: string): Promise<Array<{ exchange: string; priority: number }>>;
  reverse(ip: string): Promise<string[]>;
  /** Settles when the deadline passes (never rejects). */
  expired: Promise<void>;
  /** Ends the check: cancels what is still waiting and stops the deadline timer. */
  close(): void;
}

/** DNS work of one health check ends by then, so the answer leaves well within 10 s. */
export const HEALTH_DNS_DEADLINE_MS = 8000;

const deadlineError = (): Error =>
  Object.assign(new Error('DNS did not answer before the check deadline'), { code: 'ETIMEOUT' });

export function healthResolver(
  servers: string[] = appConfig().dnsServers,
  deadlineMs: number = HEALTH_DNS_DEADLINE_MS,
): HealthResolver {
  const r = new dns.Resolver({ timeout: 1500, tries: 2 });
  if (servers.length > 0) r.setServers(servers);
  const abort = new AbortController();
  let markExpired: () => void = () => undefined;
  const expired = new Promise<void>((resolve) => (markExpired = resolve));
  const timer = setTimeout(() => {
    abort.abort();
    markExpired();
    r.cancel();
  }, deadlineMs);
  timer.unref();
  const bounded = <T>(query: () => Promise<T>): Promise<T> => {
    if (abort.signal.aborted) return Promise.reject(deadlineError());
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(deadlineError());
      abort.signal.addEventListener('abort', onAbort, { once: true });
      query()
        .then(resolve, reject)
        .finally(() => abort.signal.removeEventListener('abort', onAbort));
    });
  };
  return {
    resolve: (name, type) => bounded(() => r.resolve(name, type)),
    resolve4: (name) => bounded(() => r.resolve4(name)),
    resolveMx: (name) => bounded(() => r.resolveMx(name)),
    reverse: (ip) => bounded(() => r.reverse(ip)),
    expired,
    close: () => {
      clearTimeout(timer);
      if (!abort.signal.aborted) {
        abort.abort();
        r.cancel();
      }
    },
  };
}

/** A lookup that found nothing (no such name, or no record of that type), as opposed to a failure. */
export const isNoRecord = (err: unknown): boolean =>
  ['ENOTFOUND', 'ENODATA'].includes((err as { code?: string } | null)?.code ?? '');
