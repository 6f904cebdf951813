#!/usr/bin/env node
/**
 * Address verification at import scale (not a test): BENCH_VERIFY_CONTACTS (100,000) addresses at
 * BENCH_VERIFY_DOMAINS (2,000) domains checked as the background worker checks them (the offline
 * checks, then MailDns, 32 at a time), against a local DNS server answering BENCH_DNS_DELAY_MS (5 ms)
 * late. Prints contacts/s, the DNS queries the server saw (per domain) and the RSS, next to a baseline
 * measured in the same run: the same checks with the cache off (every contact asks DNS), on
 * BENCH_VERIFY_BASELINE_CONTACTS (5,000) of the addresses.
 *
 *   npx nest build && node bench/verification.mjs
 *
 * Needs no database. Prints a table on stdout, then one JSON object.
 */
import { join } from 'node:path';
import { mxDnsServer, root } from './lib.mjs';

const { checkOffline } = await import(join(root, 'dist/modules/verification/address-checks.js'));
const { MailDns } = await import(join(root, 'dist/modules/verification/mail-dns.js'));
const CONTACTS = Number(process.env.BENCH_VERIFY_CONTACTS ?? 100_000);
const DOMAINS = Number(process.env.BENCH_VERIFY_DOMAINS ?? 2_000);
const BASELINE = Number(process.env.BENCH_VERIFY_BASELINE_CONTACTS ?? 5_000);
const DELAY = Number(process.env.BENCH_DNS_DELAY_MS ?? 5);
const log = (...a) => console.error('[bench:verification]', ...a);

const dns = await mxDnsServer({ delayMs: DELAY });
const servers = [dns.address];

const addresses = Array.from({ length: CONTACTS }, (_, i) => `person${i}@company${i % DOMAINS}.example`);

async function checkAll(list, mailDns) {
  let next = 0;
  const statuses = {};
  const worker = async () => {
    while (next < list.length) {
      const offline = checkOffline(list[next++]);
      const answer = offline.ok ? await mailDns.lookup(offline.domain) : { kind: 'syntax' };
      statuses[answer.kind] = (statuses[answer.kind] ?? 0) + 1;
    }
  };
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: 32 }, worker));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { seconds, perSecond: Math.round(list.length / seconds), statuses };
}

log(`baseline: ${BASELINE} contacts, cache off`);
const uncached = new MailDns({ servers, positiveTtlMs: 0, negativeTtlMs: 0, failureTtlMs: 0 });
const base = await checkAll(addresses.slice(0, BASELINE), uncached);
const baseQueries = dns.queries();

log(`cached: ${CONTACTS} contacts at ${DOMAINS} domains`);
const cached = new MailDns({ servers });
const rssBefore = process.memoryUsage().rss;
const run = await checkAll(addresses, cached);
const rssAfter = process.memoryUsage().rss;
const queries = dns.queries() - baseQueries;
await dns.close();

const result = {
  contacts: CONTACTS,
  domains: DOMAINS,
  dns_delay_ms: DELAY,
  cached: {
    contacts_per_second: run.perSecond,
    seconds: Math.round(run.seconds * 100) / 100,
    dns_queries: queries,
    queries_per_domain: Math.round((queries / DOMAINS) * 100) / 100,
    rss_mb: Math.round(rssAfter / 1e6),
    rss_growth_mb: Math.round((rssAfter - rssBefore) / 1e6),
    statuses: run.statuses,
  },
  baseline_no_cache: {
    contacts: BASELINE,
    contacts_per_second: base.perSecond,
    dns_queries: baseQueries,
    queries_per_contact: Math.round((baseQueries / BASELINE) * 100) / 100,
  },
};
console.log(
  `cached:   ${run.perSecond} contacts/s, ${queries} DNS queries (${result.cached.queries_per_domain}/domain), RSS ${result.cached.rss_mb} MB`,
);
console.log(
  `no cache: ${base.perSecond} contacts/s, ${baseQueries} DNS queries (${result.baseline_no_cache.queries_per_contact}/contact)`,
);
console.log(JSON.stringify(result));
