/**
 * The resolver sending-domain health reads DNS with: the system's, or DNS_SERVERS (ip[:port]) so
 * tests can point it at a local server. One query times out after 3 s (two tries).
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
}

export function healthResolver(servers: string[] = appConfig().dnsServers): HealthResolver {
  const r = new dns.Resolver({ timeout: 3000, tries: 2 });
  if (servers.length > 0) r.setServers(servers);
  return {
    resolve: (name, type) => r.resolve(name, type),
    resolve4: (name) => r.resolve4(name),
    resolveMx: (name) => r.resolveMx(name),
    reverse: (ip) => r.reverse(ip),
  };
}

/** A lookup that found nothing (no such name, or no record of that type), as opposed to a failure. */
export const isNoRecord = (err: unknown): boolean =>
  ['ENOTFOUND', 'ENODATA'].includes((err as { code?: string } | null)?.code ?? '');
