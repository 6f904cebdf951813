/**
 * Webhook target safety: https only, and every address a target resolves to must be
 * public unicast. ipaddr.js classifies; transition forms that embed an IPv4 address (IPv4-mapped,
 * IPv4-compatible, RFC 6145, NAT64, 6to4, Teredo) are judged by the address they embed.
 * `WEBHOOK_ALLOWED_TEST_HOSTS` exempts exact hostnames (tests only, off by default).
 */
import { lookup as dnsLookup } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { appConfig } from '../../config/app-config.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to every address it has (dns.lookup with all: true, by default). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err) reject(err);
      else resolve(addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })));
    });
  });

export class UnsafeTargetError extends Error {}

/** Resolution took longer than the attempt's deadline (a failed attempt, not an unsafe target). */
export class ResolveTimeoutError extends Error {}

/** Bounds a resolver by a deadline, so name resolution counts against an attempt's timeout. */
export function resolverWithTimeout(resolver: Resolver, ms: number): Resolver {
  return (hostname) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new ResolveTimeoutError('timeout (resolving the host)')), ms);
      resolver(hostname).then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
}

export interface CheckedTarget {
  url: URL;
  /** WHATWG-parsed hostname, brackets removed for IPv6 literals. */
  hostname: string;
  /** The address the connection must use (null: an exempt test host, connect as usual). */
  address: string | null;
  family: 4 | 6 | null;
  exempt: boolean;
}

const MAX_URL_LENGTH = 2048;

function v4FromBytes(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

/** The IPv4 address an IPv6 transition form carries, if it is one of those forms. */
function embeddedV4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const b = ip.toByteArray();
  const range = ip.range();
  const allZero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (RFC 6145), NAT64 64:ff9b::/96 (and 64:ff9b:1::/48)
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052')
    return v4FromBytes(b.slice(12, 16));
  // 6to4 2002:AABB:CCDD::/48
  if (range === '6to4') return v4FromBytes(b.slice(2, 6));
  // Teredo 2001:0::/32: the client address is the last 32 bits, inverted
  if (range === 'teredo') return v4FromBytes(b.slice(12, 16).map((x) => x ^ 0xff));
  // IPv4-compatible (deprecated) ::a.b.c.d, except :: and ::1 which ipaddr classifies itself
  if (allZero(0, 12) && range !== 'unspecified' && range !== 'loopback') return v4FromBytes(b.slice(12, 16));
  return null;
}

/** The reason an address is not public unicast, or null when it is. */
export function addressProblem(raw: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // parse() (not process) so we see the v6 form and unwrap it ourselves.
    ip = ipaddr.parse(raw.replace(/%.*$/, ''));
  } catch {
    return 'not an IP address';
  }
  if (raw.includes('%')) return 'scoped IPv6 address';
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    const inner = embeddedV4(v6);
    if (inner) {
      // Teredo also carries the relay server address in bits 32..63; both must be public.
      if (v6.range() === 'teredo') {
        const server = v4FromBytes(v6.toByteArray().slice(4, 8));
        if (server.range() !== 'unicast') return `Teredo server address is ${server.range()}`;
      }
      const r = inner.range();
      return r === 'unicast' ? null : `embeds an IPv4 address that is ${r}`;
    }
    const r = v6.range();
    return r === 'unicast' ? null : `address is ${r}`;
  }
  const r = (ip as ipaddr.IPv4).range();
  return r === 'unicast' ? null : `address is ${r}`;
}

export function isExemptHost(hostname: string): boolean {
  return appConfig().webhookAllowedTestHosts.includes(hostname.toLowerCase());
}

/** Parses and checks the syntax of a target URL (no DNS). Throws UnsafeTargetError. */
export function parseTarget(raw: string): { url: URL; hostname: string; exempt: boolean } {
  if (typeof raw !== 'string' || raw.length === 0) throw new UnsafeTargetError('url is required');
  if (raw.length > MAX_URL_LENGTH) throw new UnsafeTargetError('url is too long');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError('url is not a valid absolute URL');
  }
  // WHATWG normalises decimal, octal and hex IPv4 spellings (http://2130706433/ → 127.0.0.1),
  // so every check below runs on the parsed hostname, never on the raw text.
  const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const exempt = isExemptHost(hostname) || isExemptHost(url.hostname);
  if (url.protocol !== 'https:' && !(exempt && url.protocol === 'http:')) {
    throw new UnsafeTargetError('url must use https');
  }
  if (url.username || url.password) throw new UnsafeTargetError('url must not contain credentials');
  if (!hostname) throw new UnsafeTargetError('url has no host');
  return { url, hostname, exempt };
}

/**
 * Checks a target fully: syntax, then every address the host resolves to. Returns the address to pin
 * the connection to. An IP-literal host is checked as is; a name is resolved with `resolver`.
 */
export async function checkTarget(raw: string, resolver: Resolver = systemResolver): Promise<CheckedTarget> {
  const { url, hostname, exempt } = parseTarget(raw);
  if (exempt) return { url, hostname, address: null, family: null, exempt: true };
  if (ipaddr.isValid(hostname)) {
    const problem = addressProblem(hostname);
    if (problem) throw new UnsafeTargetError(`url host is not a public address (${problem})`);
    return { url, hostname, address: hostname, family: hostname.includes(':') ? 6 : 4, exempt: false };
  }
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    throw new UnsafeTargetError('url host is not a public address (localhost)');
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolver(hostname);
  } catch (err) {
    if (err instanceof ResolveTimeoutError) throw err;
    throw new UnsafeTargetError('url host does not resolve');
  }
  if (addresses.length === 0) throw new UnsafeTargetError('url host does not resolve');
  for (const a of addresses) {
    const problem = addressProblem(a.address);
    if (problem) throw new UnsafeTargetError(`url host resolves to a non-public address (${problem})`);
  }
  const first = addresses[0];
  return { url, hostname, address: first.address, family: first.family, exempt: false };
}
