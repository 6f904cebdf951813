/**
 * Sending-domain health (CONTRACT §19): what Gmail, Yahoo and Microsoft require of bulk senders,
 * read from DNS. The record grammar and the checks are mailauth's (nodemailer's author): SPF is
 * evaluated with its SPF engine for an address the provider (or the inbox's own SMTP host) sends
 * from, so includes, redirects and lookup limits count as a receiver counts them; DKIM keys are read
 * and validated by its key reader; DMARC by its record lookup (organisational domain included).
 *
 * - `spf`, `dkim`, `dmarc` are required: missing or wrong, the verdict is `fail`.
 * - `mx` (replies and bounces need one) and `ptr` (of the SMTP host, when it is the inbox's own) are
 *   advised: `warn`. So is a DKIM key not found at selectors only guessed (a plain SMTP inbox with
 *   no DKIM_SELECTORS).
 * - A DNS failure (timeout, refused) is never read as a missing record: the check fails with
 *   `temporary`, the verdict is at worst `warn`, and the result is not cached.
 */
import { isIP } from 'node:net';
import { dmarc } from 'mailauth/lib/dmarc/index.js';
import { spf } from 'mailauth/lib/spf/index.js';
import { getPublicKey } from 'mailauth/lib/tools.js';
import { isNoRecord, type HealthResolver } from './dns-resolver.js';

export type HealthVerdict = 'pass' | 'warn' | 'fail';
export type HealthCheckName = 'mx' | 'spf' | 'dkim' | 'dmarc' | 'ptr';

export interface HealthCheck {
  name: HealthCheckName;
  ok: boolean;
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
  temporary: boolean;
}

const ok = (name: HealthCheckName, detail: string, required: boolean): Outcome => ({
  name,
  ok: true,
  detail,
  required,
  temporary: false,
});
const bad = (name: HealthCheckName, detail: string, required: boolean, temporary = false): Outcome => ({
  name,
  ok: false,
  detail,
  required,
  temporary,
});
const dnsFailure = (err: unknown): string =>
  `DNS lookup failed (${(err as { code?: string } | null)?.code ?? 'error'}); try again later`;

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
): Promise<{ ip: string; who: string } | string> {
  if (s.sender.kind === 'provider') return { ip: s.sender.probeIp, who: s.sender.label };
  const { host } = s.sender;
  // The host name is credential-adjacent (never shown by the API); its address is what SPF names.
  if (isIP(host)) return { ip: host, who: `the inbox's SMTP server (${host})` };
  try {
    const [ip] = await dns.resolve4(host);
    return ip
      ? { ip, who: `the inbox's SMTP server (${ip})` }
      : "the inbox's SMTP server has no IPv4 address";
  } catch {
    return "the inbox's SMTP server does not resolve";
  }
}

async function checkSpf(s: HealthSubject, dns: HealthResolver): Promise<Outcome> {
  const sender = await senderIp(s, dns);
  if (typeof sender === 'string') return bad('spf', `SPF not evaluated: ${sender}`, true, true);
  const r = await spf({
    sender: `postmaster@${s.domain}`,
    ip: sender.ip,
    helo: s.domain,
    mta: 'health-check',
    resolver: dns.resolve as never,
  });
  const record = r.rr ? ` (${r.rr})` : '';
  switch (r.status.result) {
    case 'pass':
      return ok('spf', `the SPF record of ${s.domain} authorises ${sender.who}${record}`, true);
    case 'none':
      return bad('spf', `no SPF record at ${s.domain}: it must authorise ${sender.who}`, true);
    case 'temperror':
    case 'temperr':
      return bad('spf', `SPF of ${s.domain} could not be read; try again later`, true, true);
    case 'permerror':
      return bad('spf', `the SPF record of ${s.domain} is invalid${record}`, true);
    case 'fail':
    case 'softfail':
    case 'neutral':
    case 'policy':
    case 'skipped':
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
  if (failed) return bad('dkim', dnsFailure(failed.err), true, true);
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

async function checkPtr(host: string, dns: HealthResolver): Promise<Outcome> {
  let ip = host;
  try {
    if (!isIP(host)) [ip] = await dns.resolve4(host);
  } catch (err) {
    return bad('ptr', "the inbox's SMTP server does not resolve", false, !isNoRecord(err));
  }
  try {
    const names = await dns.reverse(ip);
    for (const name of names) {
      const back = await dns.resolve4(name).catch(() => [] as string[]);
      if (back.includes(ip))
        return ok('ptr', `${ip} has reverse DNS ${name}, which resolves back to it`, false);
    }
    return bad('ptr', `the reverse DNS of ${ip} (${names.join(', ')}) does not resolve back to it`, false);
  } catch (err) {
    if (isNoRecord(err)) return bad('ptr', `${ip} has no reverse DNS (PTR) record`, false);
    return bad('ptr', dnsFailure(err), false, true);
  }
}

/** Reads the domain's records and judges them. `cacheable` is false when a lookup failed for a while. */
export async function checkDomainHealth(
  s: HealthSubject,
  dns: HealthResolver,
  now: () => Date = () => new Date(),
): Promise<{ view: DomainHealthView; cacheable: boolean }> {
  const outcomes = await Promise.all([
    checkMx(s, dns),
    checkSpf(s, dns),
    checkDkim(s, dns),
    checkDmarc(s, dns),
    ...(s.sender.kind === 'host' ? [checkPtr(s.sender.host, dns)] : []),
  ]);
  const verdict: HealthVerdict = outcomes.some((o) => !o.ok && o.required && !o.temporary)
    ? 'fail'
    : outcomes.some((o) => !o.ok)
      ? 'warn'
      : 'pass';
  return {
    view: {
      domain: s.domain,
      checked_at: now().toISOString(),
      verdict,
      checks: outcomes.map(({ name, ok: passed, detail }) => ({ name, ok: passed, detail })),
    },
    cacheable: !outcomes.some((o) => o.temporary),
  };
}
