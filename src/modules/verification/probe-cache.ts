/**
 * What SMTP probes learnt, in Redis so every worker and API process shares it: per address its
 * outcome for 30 days, per domain whether it accepts any address (catch-all) for 7 days. Only
 * conclusive answers are written. A Redis that fails or hangs (1 s command timeout) reads as a miss
 * and drops the write: the probe then asks the server, within its own per-MX limit.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { appConfig } from '../../config/app-config.js';

/** A conclusive probe's verdict of one address. */
export type AddressOutcome = 'valid' | 'mailbox_unknown' | 'catch_all';

export const ADDRESS_TTL_SECONDS = 30 * 24 * 3600;
export const DOMAIN_TTL_SECONDS = 7 * 24 * 3600;
const OUTCOMES: ReadonlySet<string> = new Set<AddressOutcome>(['valid', 'mailbox_unknown', 'catch_all']);

export class ProbeCache {
  constructor(private readonly redis: Redis) {}

  /** Addresses are keyed by a hash: no mailbox names in Redis key listings. */
  private addressKey(address: string): string {
    const hash = createHash('sha256').update(address).digest('hex').slice(0, 40);
    return `${appConfig().redisPrefix}:verify:probe:addr:${hash}`;
  }

  private domainKey(domain: string): string {
    return `${appConfig().redisPrefix}:verify:probe:catchall:${domain}`;
  }

  async address(address: string): Promise<AddressOutcome | null> {
    const value = await this.redis.get(this.addressKey(address)).catch(() => null);
    return value !== null && OUTCOMES.has(value) ? (value as AddressOutcome) : null;
  }

  /** Whether the domain accepts any address: null when not known. */
  async catchAll(domain: string): Promise<boolean | null> {
    const value = await this.redis.get(this.domainKey(domain)).catch(() => null);
    return value === '1' ? true : value === '0' ? false : null;
  }

  async rememberAddress(address: string, outcome: AddressOutcome): Promise<void> {
    await this.redis.set(this.addressKey(address), outcome, 'EX', ADDRESS_TTL_SECONDS).catch(() => null);
  }

  async rememberDomain(domain: string, catchAll: boolean): Promise<void> {
    await this.redis
      .set(this.domainKey(domain), catchAll ? '1' : '0', 'EX', DOMAIN_TTL_SECONDS)
      .catch(() => null);
  }
}
