/**
 * Sending-domain health (CONTRACT §19): what Gmail, Yahoo and Microsoft require of bulk senders,
 * read from DNS. SPF is evaluated by spf-evaluation.ts (RFC 7208 check_host() with its lookup limits)
 * for an address the provider (or the inbox's own SMTP host) sends from, so includes, redirects and
 * lookup limits count as a receiver counts them; DKIM keys are read and validated by mailauth's key
 * reader (nodemailer's author); DMARC by its record lookup (organisational domain included).
 *
 * - `spf`, `dkim`, `dmarc` are required: missing or wrong, the verdict is `fail`.
 * - `mx` (replies and bounces need one) and `ptr` (of the SMTP host, when it is the inbox's own) are
 *   advised: `warn`. So is a DKIM key not found at selectors only guessed (a plain SMTP inbox with
 *   no DKIM_SELECTORS).
 * - A DNS failure (time-out, refused, the check's deadline) is never read as an answer: the check is
 *   `temperror` (RFC 7208's name for "try again": not evaluated yet), the verdict is at worst `warn`.
 * - The whole check ends by the resolver's deadline (dns-resolver.ts): a check still waiting then is
 *   answered `temperror`.
 */
import { isIP } from 'node:net';
import { dmarc } from 'mailauth/lib/dmarc/index.js';
import { getPublicKey } from 'mailauth/lib/tools.js';
import { isNoRecord, type HealthResolver } from './dns-resolver.js';
import { evaluateSpf, SPF_ADDRESS_LIMIT } from './spf-evaluation.js';

export type HealthVerdict = 'pass' | 'warn' | 'fail';
export type HealthCheckName = 'mx' | 'spf' | 'dkim' | 'dmarc' | 'ptr';

export interface HealthCheck {
  name: HealthCheckName;
  ok: boolean;
  /** DNS did not answer (in time): not evaluated, try again later. `ok` is false. */
  temperror: boolean;
  detail: string;
}

export interface DomainHealthView {
  domain: string;
  checked_at: string;
  verdict: HealthVerdict;
  checks: HealthCheck[];
}

export interface HealthSubject {
  domain: string;
  /** Who sends: a provider's servers, or the inbox's own SMTP host. */
  sender:
    | { kind: 'provider'; label: string; probeIp: string; dkimSelectors: string[] }
    | { kind: 'host'; host: string };
  /** DKIM_SELECTORS: looked for besides the provider's own. */
  extraSelectors: string[];
}

/** Selectors looked for on a plain SMTP inbox when nothing names one (the common defaults). */
export const COMMON_DKIM_SELECTORS = ['default', 'dkim', 'mail', 's1', 's2', 'selector1', 'selector2', 'k1'];

interface Outcome extends HealthCheck {
  required: boolean;
}

const ok = (name: HealthCheckName, detail: string, required: boolean): Outcome => ({
  name,
  ok: true,
  temperror: false,
  detail,
  required,
});
const bad = (name: HealthCheckName, detail: string, required: boolean, temperror = false): Outcome => ({
  name,
  ok: false,
  temperror,
  detail,
  required,
});
const dnsFailure = (err: unknown): string =>
  `DNS lookup failed (${(err as { code?: string } | null)?.code ?? 'error'}); try again later`;
/** A DNS failure: not an answer. */
const temp = (name: HealthCheckName, err: unknown, required: boolean): Outcome =>
  bad(name, dnsFailure(err), required, true);

async function checkMx(s: HealthSubject, dns: HealthResolver): Promise<Outcome> {
  try {
    const mx = await dns.resolveMx(s.domain);
    if (mx.length === 0)
      return bad('mx', `no MX record for ${s.domain}: replies and bounces cannot reach it`, false);
    const hosts = [...mx].sort((a, b) => a.priority - b.priority).map((r) => r.exchange);
    return ok('mx', `${s.domain} receives mail at ${hosts.slice(0, 3).join(', ')}`, false);
  } catch (err) {
    if (isNoRecord(err))
      return bad('mx', `no MX record for ${s.domain}: replies and bounces cannot reach it`, false);
    return bad('mx', dnsFailure(err), false, true);
  }
}

/** The sender's address to evaluate SPF for, or null (with why) when it has none. */
async function senderIp(
  s: HealthSubject,
  dns: HealthResolver,
): Promise<{ ip: string; who: string } | Outcome> {
  if (s.sender.kind === 'provider') return { ip: s.sender.probeIp, who: s.sender.label };
  const { host } = s.sender;
  // The host name is credential-adjacent (never shown by the API); its address is what SPF names.
  if (isIP(host)) return { ip: host, who: `the inbox's SMTP server (${host})` };
  try {
    const [ip] = await dns.resolve4(host);
    return ip
      ? { ip, who: `the inbox's SMTP server (${ip})` }
      : bad('spf', "SPF not evaluated: the inbox's SMTP server has no IPv4 address", false);
  } catch (err) {
    if (!isNoRecord(err)) return temp('spf', err, true);
    return bad('spf', "SPF not evaluated: the inbox's SMTP server does not resolve", false);
  }
}

async function checkSpf(s: HealthSubject, dns: HealthResolver): Promise<Outcome> {
  const sender = await senderIp(s, dns);
  if ('name' in sender) return sender;
  const r = await evaluateSpf(s.domain, sender.ip, dns.resolve);
  const record = r.record ? ` (${r.record})` : '';
  switch (r.result) {
    case 'pass':
      return ok('spf', `the SPF record of ${s.domain} authorises ${sender.who}${record}`, true);
    case 'none':
      return bad('spf', `no SPF record at ${s.domain}: it must authorise ${sender.who}`, true);
    case 'temperror':
      return bad('spf', `SPF of ${s.domain} could not be read (${r.reason}); try again later`, true, true);
    case 'permerror':
      return bad('spf', `the SPF record of ${s.domain} is invalid: ${r.reason}${record}`, true);
    case 'fail':
    case 'softfail':
    case 'neutral':
      return bad('spf', `the SPF record of ${s.domain} does not authorise ${sender.who}${record}`, true);
  }
}

async function checkDkim(s: HealthSubject, dns: HealthResolver): Promise<Outcome> {
  const known = [...(s.sender.kind === 'provider' ? s.sender.dkimSelectors : []), ...s.extraSelectors];
  const guessed = known.length === 0;
  const selectors = [...new Set(guessed ? COMMON_DKIM_SELECTORS : known)];
  const results = await Promise.all(
    selectors.map(async (selector) => {
      try {
        await getPublicKey('DKIM', `${selector}._domainkey.${s.domain}`, 1024, dns.resolve);
        return { selector, found: true as const };
      } catch (err) {
        return { selector, found: false as const, err };
      }
    }),
  );
  const found = results.filter((r) => r.found).map((r) => r.selector);
  if (found.length > 0) return ok('dkim', `DKIM key published at selector ${found.join(', ')}`, true);
  const code = (r: (typeof results)[number]): string =>
    String((r.err as { code?: string } | null)?.code ?? '');
  // mailauth's key reader: EINVALIDVAL / EINVALIDVER / EINVALIDTYPE (malformed), ESHORTKEY (< 1024 bits).
  const invalid = results.find((r) => /^E(INVALID|SHORTKEY)/.test(code(r)));
  if (invalid) {
    return bad(
      'dkim',
      `the DKIM key at selector ${invalid.selector} is invalid or shorter than 1024 bits`,
      true,
    );
  }
  const failed = results.find((r) => !r.found && !isNoRecord(r.err));
  if (failed) return temp('dkim', failed.err, true);
  const where = selectors.map((x) => `${x}._domainkey.${s.domain}`).join(', ');
  return guessed
    ? bad(
        'dkim',
        `no DKIM key found at the usual selectors (${where}); name yours with DKIM_SELECTORS`,
        false,
      )
    : bad('dkim', `no DKIM key at ${where}`, true);
}

async function checkDmarc(s: HealthSubject, dns: HealthResolver): Promise<Outcome> {
  // Only the record matters here (no message is aligned): its presence and its policy.
  const r = await dmarc({
    headerFrom: s.domain,
    spfDomains: [],
    dkimDomains: [],
    resolver: dns.resolve as never,
  });
  if (!r) return bad('dmarc', `no DMARC record at _dmarc.${s.domain}`, true);
  const res = r as unknown as { status: { result: string }; policy?: string; rr?: string };
  if (res.status.result === 'temperror')
    return bad('dmarc', `DMARC of ${s.domain} could not be read; try again later`, true, true);
  if (res.status.result === 'none')
    return bad('dmarc', `no DMARC record at _dmarc.${s.domain} (p=none or stricter is required)`, true);
  const policy = (res.policy ?? '').toLowerCase();
  if (!['none', 'quarantine', 'reject'].includes(policy)) {
    return bad('dmarc', `the DMARC record of ${s.domain} has no valid policy (${res.rr ?? ''})`, true);
  }
  return ok('dmarc', `DMARC policy p=${policy} (${res.rr ?? ''})`, true);
}

/**
 * Forward-confirmed reverse DNS of the SMTP host: its first 10 reverse names (RFC 7208 §4.6.4's
 * bound), resolved in parallel; a name whose lookup failed makes the check `temperror` unless another
 * name already confirms the address.
 */
async function checkPtr(host: string, dns: HealthResolver): Promise<Outcome> {
  let ip = host;
  if (!isIP(host)) {
    try {
      const [first] = await dns.resolve4(host);
      if (!first) return bad('ptr', "the inbox's SMTP server has no IPv4 address", false);
      ip = first;
    } catch (err) {
      if (!isNoRecord(err)) return temp('ptr', err, false);
      return bad('ptr', "the inbox's SMTP server does not resolve", false);
    }
  }
  let names: string[];
  try {
    names = await dns.reverse(ip);
  } catch (err) {
    if (isNoRecord(err)) return bad('ptr', `${ip} has no reverse DNS (PTR) record`, false);
    return temp('ptr', err, false);
  }
  if (names.length === 0) return bad('ptr', `${ip} has no reverse DNS (PTR) record`, false);
  const looked = names.slice(0, SPF_ADDRESS_LIMIT);
  const back = await Promise.allSettled(looked.map((name) => dns.resolve4(name)));
  const confirmed = looked.find((_, i) => {
    const b = back[i];
    return b.status === 'fulfilled' && b.value.includes(ip);
  });
  if (confirmed) return ok('ptr', `${ip} has reverse DNS ${confirmed}, which resolves back to it`, false);
  const failed = back.find((b) => b.status === 'rejected' && !isNoRecord(b.reason));
  if (failed) return temp('ptr', (failed as PromiseRejectedResult).reason, false);
  const shown = looked.slice(0, 3).join(', ') + (names.length > 3 ? `, … (${names.length} names)` : '');
  return bad('ptr', `the reverse DNS of ${ip} (${shown}) does not resolve back to it`, false);
}

/** A check not finished by the deadline is `temperror`; one that threw on a DNS failure too. */
const bounded = (
  name: HealthCheckName,
  required: boolean,
  check: Promise<Outcome>,
  dns: HealthResolver,
): Promise<Outcome> =>
  Promise.race([
    check.catch((err: unknown) => {
      if ((err as { code?: unknown } | null)?.code === undefined) throw err;
      return temp(name, err, required);
    }),
    dns.expired.then(() =>
      bad(name, 'DNS did not answer within the check deadline; try again later', required, true),
    ),
  ]);

/** Reads the domain's records and judges them, within the resolver's deadline. */
export async function checkDomainHealth(
  s: HealthSubject,
  dns: HealthResolver,
  now: () => Date = () => new Date(),
): Promise<{ view: DomainHealthView; temperror: boolean }> {
  const outcomes = await Promise.all([
    bounded('mx', false, checkMx(s, dns), dns),
    bounded('spf', true, checkSpf(s, dns), dns),
    bounded('dkim', true, checkDkim(s, dns), dns),
    bounded('dmarc', true, checkDmarc(s, dns), dns),
    ...(s.sender.kind === 'host' ? [bounded('ptr', false, checkPtr(s.sender.host, dns), dns)] : []),
  ]);
  const verdict: HealthVerdict = outcomes.some((o) => !o.ok && o.required && !o.temperror)
    ? 'fail'
    : outcomes.some((o) => !o.ok)
      ? 'warn'
      : 'pass';
  return {
    view: {
      domain: s.domain,
      checked_at: now().toISOString(),
      verdict,
      checks: outcomes.map(({ name, ok: passed, temperror, detail }) => ({
        name,
        ok: passed,
        temperror,
        detail,
      })),
    },
    temperror: outcomes.some((o) => o.temperror),
  };
}
