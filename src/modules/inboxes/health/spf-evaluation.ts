/**
 * SPF evaluation for sending-domain health: RFC 7208 `check_host()` for one known address, with the
 * RFC's processing limits enforced exactly, so a hostile record costs a bounded number of queries:
 *
 * - at most 10 terms that cause DNS lookups (`include`, `a`, `mx`, `ptr`, `exists`, `redirect`), over
 *   the whole evaluation, includes and redirects included; the 11th is a `permerror` (§4.6.4);
 * - at most 2 void lookups (an answer with no records, or no such name); the 3rd is a `permerror`;
 * - each `mx` looks at no more than 10 mail hosts: a longer MX set is a `permerror`; each `ptr` at the
 *   first 10 names, the rest ignored (§4.6.4);
 * - a DNS failure (time-out, server failure, refusal, the check's deadline) is a `temperror` (§2.6.6):
 *   "try again", never read as an answer.
 *
 * Only the address family of the evaluated address is queried (A for IPv4, AAAA for IPv6), and an
 * `mx`'s hosts are resolved in parallel but judged in MX priority order, as a sequential reader would.
 * Macros are expanded by mailauth's expander; the sender is `postmaster@<domain>`, and `%{d}` is the
 * domain being evaluated (so inside an include the sender's domain reads as that domain too).
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import macro from 'mailauth/lib/spf/macro.js';
import { isNoRecord, type DnsResolve } from './dns-resolver.js';

export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';

export const SPF_LOOKUP_LIMIT = 10;
export const SPF_VOID_LIMIT = 2;
/** Mail hosts of one `mx`, names of one `ptr` (RFC 7208 §4.6.4). */
export const SPF_ADDRESS_LIMIT = 10;

export interface SpfAnswer {
  result: SpfResult;
  /** The domain's own SPF record, when one was read. */
  record?: string;
  /** Why, for `permerror` and `temperror`. */
  reason?: string;
  /** DNS-lookup terms and void lookups counted. */
  lookups: number;
  voids: number;
}

class SpfError extends Error {
  constructor(
    readonly result: 'permerror' | 'temperror',
    message: string,
  ) {
    super(message);
  }
}

const QUALIFIERS: Record<string, SpfResult> = { '+': 'pass', '-': 'fail', '~': 'softfail', '?': 'neutral' };

type Mechanism = {
  qualifier: SpfResult;
  kind: 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists';
  /** Domain-spec (unexpanded), or the address range for ip4/ip6. */
  spec?: string;
  cidr4?: number;
  cidr6?: number;
};

interface ParsedRecord {
  mechanisms: Mechanism[];
  redirect?: string;
}

const MECHANISM = /^([+\-~?]?)(all|include|a|mx|ptr|ip4|ip6|exists)(?=$|[:/])(.*)$/i;
const MODIFIER = /^([a-z][a-z0-9_.-]*)=(.*)$/i;
/** `[:domain-spec][/cidr4][//cidr6]`, the argument of `a` and `mx`. */
const DUAL_CIDR = /^(?::([^/]+))?(?:\/(\d{1,2}))?(?:\/\/(\d{1,3}))?$/;

const perm = (message: string): SpfError => new SpfError('permerror', message);

/** The record's terms, or a permerror: a syntax error anywhere stops evaluation (§4.6). */
export function parseSpfRecord(record: string): ParsedRecord {
  const terms = record.trim().split(/ +/).slice(1).filter(Boolean);
  const parsed: ParsedRecord = { mechanisms: [] };
  let exp = false;
  for (const term of terms) {
    const m = MECHANISM.exec(term);
    if (m) {
      const qualifier = QUALIFIERS[m[1] || '+'];
      const kind = m[2].toLowerCase() as Mechanism['kind'];
      const rest = m[3];
      if (kind === 'all') {
        if (rest) throw perm(`invalid term ${term}`);
        parsed.mechanisms.push({ qualifier, kind });
      } else if (kind === 'include' || kind === 'exists') {
        if (!rest.startsWith(':') || rest.length < 2) throw perm(`invalid term ${term}`);
        parsed.mechanisms.push({ qualifier, kind, spec: rest.slice(1) });
      } else if (kind === 'ptr') {
        if (rest && (!rest.startsWith(':') || rest.length < 2 || rest.includes('/')))
          throw perm(`invalid term ${term}`);
        parsed.mechanisms.push({ qualifier, kind, spec: rest ? rest.slice(1) : undefined });
      } else if (kind === 'a' || kind === 'mx') {
        const d = DUAL_CIDR.exec(rest);
        if (!d) throw perm(`invalid term ${term}`);
        const cidr4 = d[2] === undefined ? 32 : Number(d[2]);
        const cidr6 = d[3] === undefined ? 128 : Number(d[3]);
        if (cidr4 > 32 || cidr6 > 128) throw perm(`invalid prefix length in ${term}`);
        parsed.mechanisms.push({ qualifier, kind, spec: d[1], cidr4, cidr6 });
      } else {
        const r = /^:([^/]+)(?:\/(\d{1,3}))?$/.exec(rest);
        const family = kind === 'ip4' ? 4 : 6;
        if (!r || isIP(r[1]) !== family) throw perm(`invalid address in ${term}`);
        const max = family === 4 ? 32 : 128;
        const bits = r[2] === undefined ? max : Number(r[2]);
        if (bits > max) throw perm(`invalid prefix length in ${term}`);
        parsed.mechanisms.push({
          qualifier,
          kind,
          spec: r[1],
          ...(family === 4 ? { cidr4: bits } : { cidr6: bits }),
        });
      }
      continue;
    }
    const mod = MODIFIER.exec(term);
    if (!mod) throw perm(`unknown mechanism ${term}`);
    const name = mod[1].toLowerCase();
    if (name === 'redirect') {
      if (parsed.redirect !== undefined) throw perm('more than one redirect');
      if (!mod[2]) throw perm('empty redirect');
      parsed.redirect = mod[2];
    } else if (name === 'exp') {
      if (exp) throw perm('more than one exp');
      exp = true;
    }
    // Unknown modifiers are ignored (§6).
  }
  return parsed;
}

const LABELS = /^(?=.{1,253}$)([A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_-]{1,63}$/;

interface State {
  ip: ipaddr.IPv4 | ipaddr.IPv6;
  ipText: string;
  v6: boolean;
  sender: string;
  helo: string;
  lookups: number;
  voids: number;
  resolve: DnsResolve;
}

function expand(spec: string, state: State, domain: string): string {
  let out: string;
  try {
    out = macro(spec, {
      sender: state.sender.replace(/@.*$/, `@${domain}`),
      ip: state.ipText,
      helo: state.helo,
      mta: 'health-check',
    });
  } catch {
    throw perm(`invalid macro in ${spec}`);
  }
  out = out.replace(/\.$/, '').toLowerCase();
  if (!LABELS.test(out)) throw perm(`invalid domain ${out}`);
  return out;
}

/** One DNS-lookup term (§4.6.4): the 11th is a permerror. */
function countLookup(state: State): void {
  state.lookups++;
  if (state.lookups > SPF_LOOKUP_LIMIT)
    throw perm(`more than ${SPF_LOOKUP_LIMIT} DNS lookups (include, a, mx, ptr, exists, redirect)`);
}

const dnsCode = (err: unknown): string => (err as { code?: string } | null)?.code ?? 'error';

/** A term's query: no records (void) counts toward the void limit; a failure is a temperror. */
async function lookup<T>(state: State, name: string, type: string): Promise<T[]> {
  let answer: T[];
  try {
    answer = (await state.resolve(name, type)) as T[];
  } catch (err) {
    if (!isNoRecord(err)) throw new SpfError('temperror', `DNS lookup of ${name} failed (${dnsCode(err)})`);
    answer = [];
  }
  if (answer.length === 0) {
    state.voids++;
    if (state.voids > SPF_VOID_LIMIT) throw perm(`more than ${SPF_VOID_LIMIT} void DNS lookups`);
  }
  return answer;
}

/** Addresses of `name` in the evaluated family: [] when it has none; throws on a DNS failure. */
async function addressesOf(state: State, name: string): Promise<string[]> {
  try {
    return (await state.resolve(name, state.v6 ? 'AAAA' : 'A')) as string[];
  } catch (err) {
    if (isNoRecord(err)) return [];
    throw new SpfError('temperror', `DNS lookup of ${name} failed (${dnsCode(err)})`);
  }
}

function inRange(state: State, address: string, m: Mechanism): boolean {
  try {
    const a = ipaddr.parse(address);
    if (a.kind() !== state.ip.kind()) return false;
    const bits = state.v6 ? (m.cidr6 ?? 128) : (m.cidr4 ?? 32);
    return (state.ip as ipaddr.IPv4).match(a as ipaddr.IPv4, bits);
  } catch {
    return false;
  }
}

async function matches(m: Mechanism, state: State, domain: string): Promise<boolean> {
  switch (m.kind) {
    case 'all':
      return true;
    case 'ip4':
    case 'ip6':
      return inRange(state, m.spec as string, m);
    case 'include': {
      countLookup(state);
      const sub = await checkHost(expand(m.spec as string, state, domain), state);
      if (sub.result === 'pass') return true;
      if (sub.result === 'temperror') throw new SpfError('temperror', sub.reason ?? 'temporary error');
      if (sub.result === 'permerror') throw perm(sub.reason ?? 'permanent error');
      if (sub.result === 'none') throw perm(`include:${m.spec} has no SPF record`);
      return false;
    }
    case 'a': {
      countLookup(state);
      const target = m.spec ? expand(m.spec, state, domain) : domain;
      const addresses = await lookup<string>(state, target, state.v6 ? 'AAAA' : 'A');
      return addresses.some((a) => inRange(state, a, m));
    }
    case 'mx': {
      countLookup(state);
      const target = m.spec ? expand(m.spec, state, domain) : domain;
      const mx = await lookup<{ exchange: string; priority: number }>(state, target, 'MX');
      if (mx.length > SPF_ADDRESS_LIMIT)
        throw perm(`mx:${target} names ${mx.length} mail hosts (at most ${SPF_ADDRESS_LIMIT})`);
      const hosts = [...mx]
        .sort((a, b) => a.priority - b.priority)
        .map((r) => r.exchange.replace(/\.$/, ''))
        .filter(Boolean);
      const answers = await Promise.allSettled(hosts.map((h) => addressesOf(state, h)));
      for (const a of answers) {
        if (a.status === 'rejected') throw a.reason;
        if (a.value.some((x) => inRange(state, x, m))) return true;
      }
      return false;
    }
    case 'ptr': {
      countLookup(state);
      const target = m.spec ? expand(m.spec, state, domain) : domain;
      let names: string[];
      try {
        names = await lookup<string>(state, reverseName(state), 'PTR');
      } catch (err) {
        // A DNS error on the PTR lookup: the mechanism does not match (§5.5).
        if (err instanceof SpfError && err.result === 'temperror') return false;
        throw err;
      }
      const first = names.slice(0, SPF_ADDRESS_LIMIT).map((n) => n.replace(/\.$/, '').toLowerCase());
      // An error on a name's address lookup skips that name (§5.5).
      const back = await Promise.allSettled(first.map((n) => addressesOf(state, n)));
      return first.some(
        (n, i) =>
          back[i].status === 'fulfilled' &&
          (back[i] as PromiseFulfilledResult<string[]>).value.some((x) => inRange(state, x, m)) &&
          (n === target || n.endsWith(`.${target}`)),
      );
    }
    case 'exists': {
      countLookup(state);
      const found = await lookup<string>(state, expand(m.spec as string, state, domain), 'A');
      return found.length > 0;
    }
  }
}

function reverseName(state: State): string {
  if (!state.v6) return `${state.ipText.split('.').reverse().join('.')}.in-addr.arpa`;
  const hex = (state.ip as ipaddr.IPv6)
    .toNormalizedString()
    .split(':')
    .map((p) => p.padStart(4, '0'))
    .join('');
  return `${hex.split('').reverse().join('.')}.ip6.arpa`;
}

async function checkHost(domain: string, state: State): Promise<SpfAnswer> {
  const done = (result: SpfResult, record?: string, reason?: string): SpfAnswer => ({
    result,
    record,
    reason,
    lookups: state.lookups,
    voids: state.voids,
  });
  let txt: string[][];
  try {
    txt = (await state.resolve(domain, 'TXT')) as string[][];
  } catch (err) {
    if (isNoRecord(err)) return done('none');
    return done('temperror', undefined, `DNS lookup of ${domain} failed (${dnsCode(err)})`);
  }
  const records = txt.map((parts) => parts.join('')).filter((r) => /^v=spf1( |$)/i.test(r));
  if (records.length === 0) return done('none');
  if (records.length > 1) return done('permerror', undefined, `${domain} publishes more than one SPF record`);
  const [record] = records;
  try {
    const parsed = parseSpfRecord(record);
    for (const m of parsed.mechanisms) {
      if (await matches(m, state, domain)) return done(m.qualifier, record);
    }
    if (parsed.redirect !== undefined) {
      countLookup(state);
      const sub = await checkHost(expand(parsed.redirect, state, domain), state);
      if (sub.result === 'none')
        return done('permerror', record, `redirect=${parsed.redirect} has no SPF record`);
      return { ...sub, record };
    }
    return done('neutral', record);
  } catch (err) {
    if (err instanceof SpfError) return done(err.result, record, err.message);
    throw err;
  }
}

/** RFC 7208 check_host() for `ip` sending as `postmaster@domain`. Never throws for DNS reasons. */
export async function evaluateSpf(domain: string, ip: string, resolve: DnsResolve): Promise<SpfAnswer> {
  // An IPv4-mapped IPv6 address is evaluated as the IPv4 address it carries.
  const parsed = ipaddr.process(ip);
  const state: State = {
    ip: parsed,
    ipText: parsed.toString(),
    v6: parsed.kind() === 'ipv6',
    sender: `postmaster@${domain}`,
    helo: domain,
    lookups: 0,
    voids: 0,
    resolve,
  };
  return checkHost(domain.toLowerCase().replace(/\.$/, ''), state);
}
