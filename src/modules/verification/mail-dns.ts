/**
 * Where a domain's mail goes, read from DNS for address verification (CONTRACT §24), cheap at import
 * scale: one answer per domain shared by every contact and workspace of the process (an hour for an
 * answer that found mail hosts, 5 minutes for a negative one, a minute for a failed lookup), one
 * lookup in flight per domain (callers of the same domain wait for it), at most `concurrency`
 * lookups at once, and an overall deadline per lookup after which the answer is `unavailable`
 * (a lookup already sent is left to finish and fill the cache; one still waiting for a slot when the
 * last of its callers' deadlines passes is dropped, never sent: nobody waits for it any more, and
 * sending it late would only pile work onto a resolver that is already slow). The resolver is the
 * system's, or DNS_SERVERS (§19) so tests point it at a local server.
 *
 * MX first: a null MX (RFC 7505: one record, exchange `.`) says the domain takes no mail; no MX
 * falls back to the domain's own A/AAAA (RFC 5321 §5.1, the implicit MX); NXDOMAIN is `no_domain`
 * when the resolver is seen to work (resolver-trust.ts), else `unavailable`.
 * A hostile answer costs bounded work: at most MAX_MX_HOSTS hosts are kept, sorted by preference.
 */
import { promises as dns } from 'node:dns';
import { appConfig } from '../../config/app-config.js';
import { ResolverTrust } from './resolver-trust.js';

export type MailDomainAnswer =
  | { kind: 'mx'; hosts: string[] }
  | { kind: 'implicit'; hosts: string[] }
  | { kind: 'no_domain' | 'no_mx' | 'null_mx' | 'unavailable' };

export interface MailDnsOptions {
  servers?: string[];
  /** The overall deadline of one domain's answer (MX, then A/AAAA). */
  deadlineMs?: number;
  concurrency?: number;
  positiveTtlMs?: number;
  negativeTtlMs?: number;
  failureTtlMs?: number;
  /** Domains kept in the cache at most; the oldest go first. */
  maxEntries?: number;
}

export const MAX_MX_HOSTS = 10;
const DEFAULTS = {
  deadlineMs: 8000,
  concurrency: 32,
  positiveTtlMs: 60 * 60 * 1000,
  negativeTtlMs: 5 * 60 * 1000,
  failureTtlMs: 60 * 1000,
  maxEntries: 100_000,
};

const code = (err: unknown): string => (err as { code?: string } | null)?.code ?? '';
/** NXDOMAIN: the name does not exist. */
const isNxDomain = (err: unknown): boolean => code(err) === 'ENOTFOUND';
/** The name exists without a record of the type asked. */
const isNoData = (err: unknown): boolean => code(err) === 'ENODATA';

export class MailDns {
  private readonly resolver: dns.Resolver;
  private readonly trust: ResolverTrust;
  private readonly opts: typeof DEFAULTS;
  private readonly cache = new Map<string, { answer: MailDomainAnswer; until: number }>();
  /** Lookups not answered yet, each with the latest deadline of the callers waiting for it. */
  private readonly inFlight = new Map<
    string,
    { answer: Promise<MailDomainAnswer>; wanted: { until: number } }
  >();
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** Lookups sent to the resolver (one per domain answer not found in the cache), for the bench and tests. */
  lookups = 0;
  /** Lookups dropped unsent: every caller's deadline passed while they waited for a slot. */
  dropped = 0;

  constructor(options: MailDnsOptions = {}) {
    this.opts = {
      ...DEFAULTS,
      ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    };
    // Each query times out after 2 s and is tried twice: an MX and an A/AAAA round fit in the deadline.
    this.resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
    const servers = options.servers ?? appConfig().dnsServers;
    if (servers.length > 0) this.resolver.setServers(servers);
    this.trust = new ResolverTrust(this.resolver);
  }

  /** The domain's mail hosts (or why there are none), within the deadline. */
  async lookup(domain: string): Promise<MailDomainAnswer> {
    const key = domain.toLowerCase();
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.answer;
    const until = Date.now() + this.opts.deadlineMs;
    let flight = this.inFlight.get(key);
    if (flight) flight.wanted.until = Math.max(flight.wanted.until, until);
    else {
      const wanted = { until };
      flight = { wanted, answer: this.resolveAndCache(key, wanted).finally(() => this.inFlight.delete(key)) };
      this.inFlight.set(key, flight);
    }
    const pending = flight.answer;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<MailDomainAnswer>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'unavailable' }), this.opts.deadlineMs);
    });
    try {
      return await Promise.race([pending, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Forget every cached answer (tests). */
  clear(): void {
    this.cache.clear();
  }

  /** `wanted.until`: the latest deadline of the lookup's callers, moved on as callers join. */
  private async resolveAndCache(domain: string, wanted: { until: number }): Promise<MailDomainAnswer> {
    if (!(await this.slot(wanted))) {
      // Nothing cached: the next call for the domain asks again.
      this.dropped++;
      return { kind: 'unavailable' };
    }
    let answer: MailDomainAnswer;
    try {
      this.lookups++;
      answer = await this.resolve(domain);
      if (answer.kind === 'mx' || answer.kind === 'implicit' || answer.kind === 'null_mx')
        this.trust.answered();
      else if (answer.kind === 'no_domain' && !(await this.trust.believesNxDomain()))
        answer = { kind: 'unavailable' };
    } catch {
      answer = { kind: 'unavailable' };
    } finally {
      this.release();
    }
    const ttl =
      answer.kind === 'mx' || answer.kind === 'implicit'
        ? this.opts.positiveTtlMs
        : answer.kind === 'unavailable'
          ? this.opts.failureTtlMs
          : this.opts.negativeTtlMs;
    if (this.cache.size >= this.opts.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.delete(domain);
    this.cache.set(domain, { answer, until: Date.now() + ttl });
    return answer;
  }

  private async resolve(domain: string): Promise<MailDomainAnswer> {
    let mx: Array<{ exchange: string; priority: number }> = [];
    try {
      mx = await this.resolver.resolveMx(domain);
    } catch (err) {
      if (isNxDomain(err)) return { kind: 'no_domain' };
      if (!isNoData(err)) return { kind: 'unavailable' };
    }
    if (mx.length > 0) {
      const hosts = mx
        .slice()
        .sort((a, b) => a.priority - b.priority)
        .map((r) => r.exchange.replace(/\.$/, '').toLowerCase());
      // RFC 7505: a single MX of "." (read back as an empty name) means "no mail here".
      if (hosts.length === 1 && hosts[0] === '') return { kind: 'null_mx' };
      const usable = [...new Set(hosts.filter((h) => h !== ''))].slice(0, MAX_MX_HOSTS);
      return usable.length > 0 ? { kind: 'mx', hosts: usable } : { kind: 'null_mx' };
    }
    const [v4, v6] = await Promise.allSettled([
      this.resolver.resolve4(domain),
      this.resolver.resolve6(domain),
    ]);
    const found = [v4, v6].some((r) => r.status === 'fulfilled' && r.value.length > 0);
    if (found) return { kind: 'implicit', hosts: [domain] };
    const failures = [v4, v6].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failures.some((f) => isNxDomain(f.reason))) return { kind: 'no_domain' };
    if (failures.every((f) => isNoData(f.reason))) return { kind: 'no_mx' };
    return { kind: 'unavailable' };
  }

  /**
   * A concurrency slot, or false (and no slot) when it came only after `wanted.until`: the lookup's
   * callers have all had `unavailable` by then, so the slot goes straight to the next in the queue.
   */
  private async slot(wanted: { until: number }): Promise<boolean> {
    if (this.active < this.opts.concurrency) {
      this.active++;
      return true;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (Date.now() < wanted.until) return true;
    this.release();
    return false;
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
