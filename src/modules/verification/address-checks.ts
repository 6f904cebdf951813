/**
 * The checks of an address that need no network (CONTRACT §24): syntax (an RFC 5321/6531 parser),
 * the domain in ASCII (IDNs through punycode), disposable domains (`mailchecker`), free-mail domains
 * (`free-email-domains`), role local parts, and a typo suggestion for the big providers
 * (`@zootools/email-spell-checker`, held to a small edit distance). Pure, and total: any string gets
 * an answer, never an exception.
 */
import { domainToASCII } from 'node:url';
import MailChecker from 'mailchecker';
import MailSpellChecker from '@zootools/email-spell-checker';
import { parse as parseSmtpAddress } from 'smtp-address-parser';
import { getDomain } from 'tldts';
import { EMAIL_MAX_LENGTH } from '../../common/email/address.js';
import { freeMailDomainCount, isFreeMailDomain } from '../../common/email/free-mail.js';
import type { VerificationReason } from '../contacts/entities/contact.entity.js';
import { ROLE_LOCAL_PARTS } from './role-prefixes.js';

/** What the offline checks found: a parsed address (domain in ASCII) or a syntax failure. */
export type OfflineCheck =
  | { ok: false; reasons: ['syntax'] }
  | {
      ok: true;
      local: string;
      /** Lower-case ASCII (A-labels for an IDN), no trailing dot. */
      domain: string;
      /** The registrable domain (`mail.acme.co.uk` → `acme.co.uk`), or the domain when tldts has none. */
      registrable: string;
      reasons: VerificationReason[];
      suggestion: string | null;
    };

const DISPOSABLE: ReadonlySet<string> = MailChecker.blacklist();
const POPULAR: ReadonlySet<string> = new Set(MailSpellChecker.POPULAR_DOMAINS);

/** The domain and each parent that still has a dot (`a.b.example.com` → …, `example.com`). */
function selfAndParents(domain: string): string[] {
  const out = [domain];
  for (let i = domain.indexOf('.'); i >= 0; i = domain.indexOf('.', i + 1)) {
    const parent = domain.slice(i + 1);
    if (parent.includes('.')) out.push(parent);
  }
  return out;
}

export const isDisposableDomain = (domain: string): boolean =>
  selfAndParents(domain).some((d) => DISPOSABLE.has(d));

/**
 * The local part without a `+tag`, lower case, quotes removed: what a role list is compared with.
 * `"Sales"+eu` → `sales`.
 */
function bareLocal(local: string): string {
  const unquoted = local.startsWith('"') && local.endsWith('"') ? local.slice(1, -1) : local;
  return unquoted.toLowerCase().split('+')[0];
}

export const isRoleLocalPart = (local: string): boolean => ROLE_LOCAL_PARTS.has(bareLocal(local));

/** Optimal string alignment distance (a transposition counts one): `gmial` → `gmail` is 1. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 4;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The domain the address probably meant, or null. The spell checker's own thresholds suggest
 * `me.com` for `acme.com`; a suggestion is kept only when it is one edit away (two for domains of ten
 * characters or more) and the domain is not itself one of the providers the checker knows.
 */
export function typoSuggestion(domain: string): string | null {
  if (POPULAR.has(domain)) return null;
  let suggested: string | undefined;
  try {
    suggested = MailSpellChecker.run({ email: `x@${domain}` })?.domain;
  } catch {
    return null;
  }
  if (!suggested || suggested === domain) return null;
  const limit = domain.length >= 10 ? 2 : 1;
  return editDistance(domain, suggested) <= limit ? suggested : null;
}

/** The domain in lower-case ASCII, or null when it is not a host name (an IDN that does not convert). */
function asciiDomain(raw: string): string | null {
  const lower = raw.toLowerCase();
  const ascii = /^[\x21-\x7e]+$/.test(lower) ? lower : domainToASCII(lower);
  if (!ascii || ascii.length > 253 || !ascii.includes('.')) return null;
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(ascii)) return null;
  if (ascii.split('.').some((label) => label.length > 63 || label.startsWith('-') || label.endsWith('-')))
    return null;
  return ascii;
}

/**
 * Syntax first: an address the RFC 5321/6531 grammar does not take, one over 254 octets as sent (the
 * local part in UTF-8, at most 64 octets; the domain as A-labels), an address literal (`[192.0.2.1]`:
 * nothing to look up, and the service does not send to one), a trailing dot or a domain without a dot
 * is `syntax`. Then the list checks on the domain and the local part.
 */
export function checkOffline(address: unknown): OfflineCheck {
  const syntax = { ok: false, reasons: ['syntax'] } as const satisfies OfflineCheck;
  if (typeof address !== 'string') return { ...syntax, reasons: ['syntax'] };
  const trimmed = address.trim();
  if (trimmed.length === 0 || trimmed.length > EMAIL_MAX_LENGTH) return { ...syntax, reasons: ['syntax'] };
  let parsed: { localPart?: Record<string, string>; domainPart?: Record<string, string> };
  try {
    parsed = parseSmtpAddress(trimmed) as typeof parsed;
  } catch {
    return { ...syntax, reasons: ['syntax'] };
  }
  const rawDomain = parsed.domainPart?.DomainName;
  const local = parsed.localPart ? Object.values(parsed.localPart)[0] : undefined;
  if (typeof rawDomain !== 'string' || typeof local !== 'string') return { ...syntax, reasons: ['syntax'] };
  const domain = asciiDomain(rawDomain);
  if (!domain) return { ...syntax, reasons: ['syntax'] };
  // RFC 5321's limits are octets as the address travels: the local part in UTF-8 (RFC 6531), the
  // domain as A-labels. An IDN can be short as typed and too long as sent.
  const localOctets = Buffer.byteLength(local, 'utf8');
  if (localOctets > 64 || localOctets + 1 + domain.length > EMAIL_MAX_LENGTH)
    return { ...syntax, reasons: ['syntax'] };

  const reasons: VerificationReason[] = [];
  let suggestion: string | null = null;
  if (isDisposableDomain(domain)) reasons.push('disposable');
  else if (isFreeMailDomain(domain)) reasons.push('free_mail');
  if (isRoleLocalPart(local)) reasons.push('role');
  const typo = typoSuggestion(domain);
  if (typo) {
    reasons.push('typo');
    suggestion = `${local}@${typo}`;
  }
  let registrable: string;
  try {
    registrable = getDomain(domain) ?? domain;
  } catch {
    registrable = domain;
  }
  return { ok: true, local, domain, registrable, reasons, suggestion };
}

/** For the CI check and the docs: the lists the checks use, and how many entries each holds. */
export function listSizes(): Record<string, number> {
  return {
    disposable: DISPOSABLE.size,
    free_mail: freeMailDomainCount(),
    role: ROLE_LOCAL_PARTS.size,
    typo_domains: MailSpellChecker.POPULAR_DOMAINS.length,
  };
}
