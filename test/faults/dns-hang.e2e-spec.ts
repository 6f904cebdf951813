/**
 * Fault: the resolver sending-domain health reads (DNS_SERVERS) never answers, then answers slowly.
 *
 * Real processes: the service (`node dist/main.js`, APP_ROLE=api) pointed at a local DNS server
 * speaking real DNS over UDP (test/helpers/dns-server.ts). Proves (docs/trust/faults.md, CONTRACT §26
 * "Domain health is bounded"):
 * - silent resolver: 20 inboxes' health asked at once, and 20 concurrent calls for one more inbox,
 *   every call answers 200 within 10 s with every check `temperror` ("try again", never an answer);
 *   the 20 calls for one inbox cost one check's questions; the API answers GET /me promptly meanwhile;
 *   asked again, the failed answers come from the cache (no new question);
 * - slow resolver (every answer 1.2 s late) and an SPF record that chains 10 includes: the call still
 *   ends within 10 s, the SPF check `temperror` at the check's deadline (the audit measured 293 s with
 *   answers 2.9 s late).
 */
import { randomUUID } from 'node:crypto';
import { createFaultTenant, jsonClient, type JsonResponse } from '../helpers/faults-http.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { db, q, sleep, startService, useProcesses } from '../helpers/processes.js';
import { seedCampaign } from '../helpers/seed.js';

/** CONTRACT §26: one check takes at most 10 s whatever the DNS does. */
const CHECK_BOUND_MS = 10_000;
/** GET /me while health checks wait on DNS: as fast as ever. */
const API_BUDGET_MS = 1000;

interface Check {
  name: string;
  ok: boolean;
  temperror: boolean;
  detail: string;
}

describe('fault: a DNS resolver that never answers, then answers slowly', () => {
  let dns: DnsServer;
  useProcesses({ after: () => dns?.close() });

  it('every health call within 10 s with temperror checks; one check per inbox; the API unaffected', async () => {
    dns = await startDnsServer();
    const t = await createFaultTenant(db);
    const service = await startService({
      role: 'api',
      env: { DNS_SERVERS: dns.address, DKIM_SELECTORS: 's1' },
    });
    const http = jsonClient(service.url, t.token, 30_000);

    const { sealSettings } = await import('../../src/modules/inboxes/inbox-credentials.js');
    /** A plain SMTP inbox on a fresh domain, its SMTP host named (so SPF and PTR need DNS too). */
    const inbox = async (): Promise<{ id: string; domain: string }> => {
      const domain = `hang-${randomUUID().slice(0, 8)}.test`;
      const { inboxIds } = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: 2525, domain });
      const [id] = inboxIds;
      const smtp = { host: `smtp.${domain}`, port: 587, secure: false, user: null, password: null };
      await q('UPDATE inboxes SET smtp_sealed = $2 WHERE id = $1', [id, sealSettings(smtp, id, 'smtp')]);
      return { id, domain };
    };
    const inboxes = await Promise.all(Array.from({ length: 20 }, inbox));
    const shared = await inbox();
    const asked = (domain: string): number => dns.queries.filter((x) => x.includes(domain)).length;

    dns.silent = true;
    let probing = true;
    const me: JsonResponse[] = [];
    const probe = (async () => {
      while (probing) {
        me.push(await http.get('/me'));
        await sleep(100);
      }
    })();
    const timed = async (path: string): Promise<JsonResponse> => http.get(path);
    const [each, same] = await Promise.all([
      Promise.all(inboxes.map((i) => timed(`/inboxes/${i.id}/health`))),
      Promise.all(Array.from({ length: 20 }, () => timed(`/inboxes/${shared.id}/health?refresh=true`))),
    ]);
    probing = false;
    await probe;

    for (const res of [...each, ...same]) {
      expect(res.status).toBe(200);
      expect(res.ms).toBeLessThan(CHECK_BOUND_MS);
      expect(res.body.data.verdict).toBe('warn');
      const checks = res.body.data.checks as Check[];
      expect(checks.map((c) => c.name).sort()).toEqual(['dkim', 'dmarc', 'mx', 'ptr', 'spf']);
      for (const c of checks) {
        expect(c).toMatchObject({ ok: false, temperror: true, detail: expect.stringMatching(/try again/) });
      }
    }
    // The 20 calls for one inbox shared one check: no more questions than one call for another inbox.
    expect(asked(shared.domain)).toBeGreaterThan(0);
    expect(asked(shared.domain)).toBeLessThanOrEqual(asked(inboxes[0].domain));
    for (const res of same) expect(res.body.data).toEqual(same[0].body.data);
    // The API meanwhile: every GET /me answered, promptly.
    expect(me.length).toBeGreaterThan(5);
    for (const res of me) expect(res.status).toBe(200);
    expect(Math.max(...me.map((r) => r.ms))).toBeLessThan(API_BUDGET_MS);

    // Asked again (refresh too): the failed answers are kept 5 minutes, no new question.
    const before = dns.queries.length;
    const again = await Promise.all([
      ...inboxes.map((i) => timed(`/inboxes/${i.id}/health`)),
      timed(`/inboxes/${shared.id}/health?refresh=true`),
    ]);
    for (const res of again) {
      expect(res.status).toBe(200);
      expect(res.ms).toBeLessThan(API_BUDGET_MS);
    }
    expect(dns.queries.length).toBe(before);
    dns.silent = false;

    // Slow answers (1.2 s each, under the per-query time-out) and 10 chained includes: 12 s of DNS
    // in sequence, cut at the check's deadline.
    dns.delayMs = 1200;
    const slow = await inbox();
    dns.add(slow.domain, { type: 'TXT', data: `v=spf1 include:i0.${slow.domain} -all` });
    for (let i = 0; i < 10; i++) {
      dns.add(`i${i}.${slow.domain}`, { type: 'TXT', data: `v=spf1 include:i${i + 1}.${slow.domain} -all` });
    }
    dns.add(`smtp.${slow.domain}`, { type: 'A', address: '192.0.2.10' });
    const res = await timed(`/inboxes/${slow.id}/health`);
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(CHECK_BOUND_MS);
    const spf = (res.body.data.checks as Check[]).find((c) => c.name === 'spf');
    expect(spf).toMatchObject({ ok: false, temperror: true, detail: expect.stringMatching(/try again/) });
  }, 120_000);
});
