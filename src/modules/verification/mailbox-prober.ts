/**
 * The SMTP probe of address verification (docs/verification.md), used only with
 * VERIFY_SMTP_PROBE=true: asks the domain's best MX host whether it takes the address (RCPT TO,
 * never DATA) and, unless the domain's answer is cached, whether it takes a random address at the
 * same domain too (a catch-all). Outcomes are cached in Redis (probe-cache.ts), connections are
 * limited per MX host and minute across processes (RateLimitService), and everything that is not a
 * clear answer is `inconclusive`: a 4xx, greylisting, a policy refusal, a refused or silent
 * connection, an MX host at a non-public address (unless VERIFY_PROBE_ALLOW_PRIVATE), the limit
 * reached, Redis unavailable for the limit, or the check's deadline.
 */
import { randomBytes } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import type { Redis } from 'ioredis';
import { RateLimitService } from '../../common/rate-limit/rate-limit.service.js';
import { logger } from '../../common/logging/logger.js';
import { REDIS } from '../../common/redis/redis.module.js';
import { appConfig } from '../../config/app-config.js';
import { ProbeCache, type AddressOutcome } from './probe-cache.js';
import { probeRecipients } from './smtp-probe.js';

export type ProbeOutcome = AddressOutcome | 'inconclusive';

/** The rate limiter's scope: keys `<REDIS_PREFIX>:rl:verify-mx:<limit>:<mx host>`. */
export const MX_LIMIT_SCOPE = 'verify-mx';
/** Less time than this left of the check's deadline: no connection is started. */
export const MIN_PROBE_MS = 1000;

/**
 * Public unicast (an IPv4-mapped IPv6 address judged as its IPv4): no loopback, private, link-local,
 * shared (CGNAT), unique-local or reserved address, unless VERIFY_PROBE_ALLOW_PRIVATE.
 */
export function isPublicUnicast(ip: string): boolean {
  try {
    return ipaddr.process(ip).range() === 'unicast';
  } catch {
    return false;
  }
}

@Injectable()
export class MailboxProber {
  private readonly cache: ProbeCache;
  private readonly resolver = new dns.Resolver({ timeout: 2000, tries: 1 });

  constructor(
    @Inject(REDIS) redis: Redis,
    private readonly limits: RateLimitService,
  ) {
    this.cache = new ProbeCache(redis);
    const servers = appConfig().dnsServers;
    if (servers.length > 0) this.resolver.setServers(servers);
  }

  get enabled(): boolean {
    return appConfig().verifyProbe.enabled;
  }

  /** `local@domain` asked at `mxHost` (the best MX, or the domain itself for an implicit MX). */
  async probe(local: string, domain: string, mxHost: string, deadlineAt: number): Promise<ProbeOutcome> {
    const address = `${local}@${domain}`;
    const cached = await this.cache.address(address);
    if (cached) return cached;
    const catchAll = await this.cache.catchAll(domain);
    const settings = appConfig().verifyProbe;
    const ip = await this.ipOf(mxHost, deadlineAt);
    if (!ip) return this.inconclusive(mxHost, 'MX host has no address');
    if (!settings.allowPrivate && !isPublicUnicast(ip))
      return this.inconclusive(mxHost, `MX host address ${ip} is not public`);
    const taken = await this.limits
      .take(MX_LIMIT_SCOPE, mxHost, settings.perMxPerMinute)
      .catch(() => false as const);
    if (!taken) return this.inconclusive(mxHost, 'per-MX limit reached (or Redis unavailable)');
    const deadlineMs = deadlineAt - Date.now();
    if (deadlineMs < MIN_PROBE_MS) return this.inconclusive(mxHost, 'no time left');
    const random = `${randomBytes(8).toString('hex')}@${domain}`;
    const result = await probeRecipients({
      ip,
      servername: mxHost,
      port: settings.port,
      heloName: settings.heloName,
      mailFrom: settings.mailFrom,
      recipients: catchAll === null ? [address, random] : [address],
      deadlineMs,
    });
    if (!result.ok) return this.inconclusive(mxHost, result.error);
    const [mine, other] = result.answers;
    let outcome: ProbeOutcome = 'inconclusive';
    if (mine === 'no_mailbox') outcome = 'mailbox_unknown';
    else if (mine === 'accepted' && catchAll !== null) outcome = catchAll ? 'catch_all' : 'valid';
    else if (mine === 'accepted' && other === 'accepted') outcome = 'catch_all';
    else if (mine === 'accepted' && (other === 'no_mailbox' || other === 'refused')) outcome = 'valid';
    if (outcome === 'inconclusive')
      return this.inconclusive(mxHost, `RCPT answers ${result.answers.join(', ')}`);
    if (catchAll === null && mine === 'accepted')
      await this.cache.rememberDomain(domain, outcome === 'catch_all');
    await this.cache.rememberAddress(address, outcome);
    return outcome;
  }

  private inconclusive(mxHost: string, why: string): 'inconclusive' {
    logger.debug({ mxHost, why }, 'verification: SMTP probe inconclusive');
    return 'inconclusive';
  }

  /** The MX host's first IPv4 address (else IPv6) through the configured resolver, within the deadline. */
  private async ipOf(host: string, deadlineAt: number): Promise<string | null> {
    if (isIP(host)) return host;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), Math.max(0, deadlineAt - Date.now() - MIN_PROBE_MS));
    });
    const lookup = (async (): Promise<string | null> => {
      const v4 = await this.resolver.resolve4(host).catch(() => [] as string[]);
      if (v4.length > 0) return v4[0];
      const v6 = await this.resolver.resolve6(host).catch(() => [] as string[]);
      return v6[0] ?? null;
    })();
    try {
      return await Promise.race([lookup, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}
