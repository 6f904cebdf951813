/**
 * The SMTP probe of address verification (docs/verification.md), off by default:
 * VERIFY_SMTP_PROBE, VERIFY_SMTP_PORT, VERIFY_HELO_NAME, VERIFY_MAIL_FROM,
 * VERIFY_PROBES_PER_MX_PER_MINUTE and VERIFY_PROBE_ALLOW_PRIVATE, validated at start like every other setting.
 */
import { hostname } from 'node:os';
import { ConfigError, intVar } from './env-vars.js';

export interface VerifyProbeSettings {
  /** VERIFY_SMTP_PROBE=true turns the probe on (default false). */
  enabled: boolean;
  /** VERIFY_SMTP_PORT (default 25): the port of the MX host the probe connects to. */
  port: number;
  /**
   * VERIFY_HELO_NAME: the name said with EHLO. Default: PUBLIC_URL's host name when that is a
   * dotted name (not an IP, not localhost), else the machine's host name.
   */
  heloName: string;
  /** VERIFY_MAIL_FROM: the reverse path of MAIL FROM; default '' (the null sender `<>`). */
  mailFrom: string;
  /** VERIFY_PROBES_PER_MX_PER_MINUTE (default 10): connections per MX host and minute, across processes. */
  perMxPerMinute: number;
  /**
   * VERIFY_PROBE_ALLOW_PRIVATE=true: MX hosts at loopback, private or link-local addresses are probed
   * too (tests; an installation whose contacts' mail servers are on its own network). Default false:
   * a contact's domain must not turn the probe on the service's own network.
   */
  allowPrivate: boolean;
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
/** An address literal (RFC 5321 §4.1.3): `[192.0.2.1]` or `[IPv6:2001:db8::1]`. */
const ADDRESS_LITERAL = /^\[(?:\d{1,3}(?:\.\d{1,3}){3}|IPv6:[0-9A-Fa-f:.]+)\]$/;
const MAILBOX = /^[\x21-\x3b\x3d\x3f-\x7e]{1,64}@[A-Za-z0-9.-]{1,253}$/;

function defaultHeloName(publicUrl: string): string {
  const host = new URL(publicUrl).hostname;
  if (host.includes('.') && HOST_NAME.test(host) && !/^[\d.]+$/.test(host)) return host;
  return hostname();
}

function boolVar(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

export function verifyProbeSettings(env: NodeJS.ProcessEnv, publicUrl: string): VerifyProbeSettings {
  const helo = (env.VERIFY_HELO_NAME ?? '').trim() || defaultHeloName(publicUrl);
  if (helo.length > 253 || !(HOST_NAME.test(helo) || ADDRESS_LITERAL.test(helo)))
    throw new ConfigError(`VERIFY_HELO_NAME must be a host name or an address literal, got "${helo}"`);
  const rawFrom = (env.VERIFY_MAIL_FROM ?? '').trim();
  const mailFrom = rawFrom.startsWith('<') && rawFrom.endsWith('>') ? rawFrom.slice(1, -1).trim() : rawFrom;
  if (mailFrom !== '' && !MAILBOX.test(mailFrom))
    throw new ConfigError(
      `VERIFY_MAIL_FROM must be an address (local@domain) or empty for the null sender, got "${rawFrom}"`,
    );
  return {
    enabled: boolVar(env, 'VERIFY_SMTP_PROBE', false),
    port: intVar(env, 'VERIFY_SMTP_PORT', 25, 1, 65535),
    heloName: helo,
    mailFrom,
    perMxPerMinute: intVar(env, 'VERIFY_PROBES_PER_MX_PER_MINUTE', 10, 1, 10_000),
    allowPrivate: boolVar(env, 'VERIFY_PROBE_ALLOW_PRIVATE', false),
  };
}
