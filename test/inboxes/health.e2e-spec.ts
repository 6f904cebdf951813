/**
 * `GET /inboxes/{id}/health` (CONTRACT §19) against a local DNS server speaking real DNS over UDP:
 * a well-configured domain passes; one without DMARC and with an SPF record that does not authorise
 * its provider fails, naming both; answers are cached for an hour unless `?refresh=true` (at most
 * once a minute). The bounds (CONTRACT §26): a hostile SPF record costs RFC 7208's bounded number of
 * queries, 20 concurrent calls cost one check, a silent resolver gives `temperror` checks within the
 * deadline (cached 5 minutes), reverse DNS looks at 10 names and never reads a time-out as an answer.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { sealSettings } from '../../src/modules/inboxes/inbox-credentials.js';
import { api, bootAppWithDns, createTenant, type TestTenant } from '../helpers/app.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { seedCampaign } from '../helpers/seed.js';

const dkimKey = (): string =>
  `v=DKIM1; k=rsa; p=${generateKeyPairSync('rsa', { modulusLength: 1024 })
    .publicKey.export({ type: 'spki', format: 'der' })
    .toString('base64')}`;

interface Check {
  name: string;
  ok: boolean;
  temperror: boolean;
  detail: string;
}

describe('sending-domain health (real DNS over UDP)', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let dns: DnsServer;
  let t: TestTenant;
  let close: () => Promise<void>;
  const q = (sql: string, params?: unknown[]): Promise<unknown> => db.query(sql, params);

  beforeAll(async () => {
    dns = await startDnsServer();
    // Google's published SPF, as a receiver resolves it (209.85.128.0/17 holds its outbound servers).
    dns.add('_spf.google.com', { type: 'TXT', data: 'v=spf1 include:_netblocks.google.com ~all' });
    dns.add('_netblocks.google.com', {
      type: 'TXT',
      data: 'v=spf1 ip4:209.85.128.0/17 ip4:74.125.0.0/16 ~all',
    });
    dns.add('mailgun.org', { type: 'TXT', data: 'v=spf1 ip4:198.61.254.0/23 ~all' });
    ({ app, db, t, close } = await bootAppWithDns(dns, { DKIM_SELECTORS: 's2026' }));
  });
  afterAll(() => close());

  /** An inbox of `t` on `domain`; `google` makes it a Google OAuth inbox. */
  const inboxOn = async (domain: string, google: boolean): Promise<string> => {
    const { inboxIds } = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: 2525, domain });
    if (google)
      await q(`UPDATE inboxes SET provider = 'google', auth = 'oauth2' WHERE id = $1`, [inboxIds[0]]);
    return inboxIds[0];
  };
  const byName = (checks: Check[]): Record<string, Check> =>
    Object.fromEntries(checks.map((c) => [c.name, c]));

  it('pass for a well-configured Google Workspace domain: MX, SPF including Google, DKIM at google._domainkey, DMARC', async () => {
    const domain = `good-${randomUUID().slice(0, 8)}.test`;
    dns.add(domain, { type: 'MX', exchange: 'aspmx.l.google.com', priority: 1 });
    dns.add(domain, { type: 'TXT', data: 'v=spf1 include:_spf.google.com ~all' });
    dns.add(`google._domainkey.${domain}`, { type: 'TXT', data: dkimKey() });
    dns.add(`_dmarc.${domain}`, {
      type: 'TXT',
      data: 'v=DMARC1; p=quarantine; rua=mailto:dmarc@example.com',
    });
    const id = await inboxOn(domain, true);
    const res = await api(app, t.token).get(`/inboxes/${id}/health`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ domain, verdict: 'pass', checked_at: expect.any(String) });
    const checks = byName(res.body.data.checks);
    expect(Object.keys(checks).sort()).toEqual(['dkim', 'dmarc', 'mx', 'spf']);
    for (const c of Object.values(checks)) expect(c.ok).toBe(true);
    expect(checks.spf.detail).toMatch(/authorises Google/);
    expect(checks.dkim.detail).toMatch(/google/);
    expect(checks.dmarc.detail).toMatch(/p=quarantine/);
  });

  it('fail naming the missing DMARC and the SPF record that does not authorise the provider; cached an hour, ?refresh=true reads again after a minute', async () => {
    const domain = `bad-${randomUUID().slice(0, 8)}.test`;
    dns.add(domain, { type: 'MX', exchange: `mx.${domain}`, priority: 10 });
    dns.add(domain, { type: 'TXT', data: 'v=spf1 include:mailgun.org ~all' });
    dns.add(`google._domainkey.${domain}`, { type: 'TXT', data: dkimKey() });
    const id = await inboxOn(domain, true);
    const res = await api(app, t.token).get(`/inboxes/${id}/health`);
    expect(res.status).toBe(200);
    expect(res.body.data.verdict).toBe('fail');
    const checks = byName(res.body.data.checks);
    expect(checks.dmarc).toMatchObject({
      ok: false,
      detail: expect.stringMatching(new RegExp(`no DMARC record at _dmarc\\.${domain}`)),
    });
    expect(checks.spf).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/does not authorise Google.*include:mailgun\.org/),
    });
    expect(checks.mx.ok).toBe(true);
    expect(checks.dkim.ok).toBe(true);

    // Fixed in DNS: the cached answer stands until it is an hour old or a refresh is asked for.
    dns.add(`_dmarc.${domain}`, { type: 'TXT', data: 'v=DMARC1; p=none' });
    const asked = dns.queries.length;
    const cached = await api(app, t.token).get(`/inboxes/${id}/health`);
    expect(cached.body.data).toEqual(res.body.data);
    expect(dns.queries.length).toBe(asked);
    // A refresh within a minute of the check is answered by that check.
    const early = await api(app, t.token).get(`/inboxes/${id}/health?refresh=true`);
    expect(early.body.data).toEqual(res.body.data);
    expect(dns.queries.length).toBe(asked);
    await q(
      `UPDATE inboxes SET health = jsonb_set(health, '{checked_at}', to_jsonb((now() - interval '61 seconds')::text)) WHERE id = $1`,
      [id],
    );
    const refreshed = await api(app, t.token).get(`/inboxes/${id}/health?refresh=true`);
    expect(dns.queries.length).toBeGreaterThan(asked);
    expect(byName(refreshed.body.data.checks).dmarc).toMatchObject({ ok: true });
    expect(refreshed.body.data.verdict).toBe('fail'); // SPF still does not authorise Google
    await q(
      `UPDATE inboxes SET health = jsonb_set(health, '{checked_at}', to_jsonb((now() - interval '61 minutes')::text)) WHERE id = $1`,
      [id],
    );
    const before = dns.queries.length;
    await api(app, t.token).get(`/inboxes/${id}/health`);
    expect(dns.queries.length).toBeGreaterThan(before);
  });

  it('a plain SMTP inbox: SPF evaluated for its SMTP host, DKIM at DKIM_SELECTORS, PTR of the host forward-confirmed', async () => {
    const domain = `own-${randomUUID().slice(0, 8)}.test`;
    dns.add(domain, { type: 'MX', exchange: `mx.${domain}`, priority: 10 });
    dns.add(domain, { type: 'TXT', data: 'v=spf1 ip4:192.0.2.10 -all' });
    dns.add(`s2026._domainkey.${domain}`, { type: 'TXT', data: dkimKey() });
    dns.add(`_dmarc.${domain}`, { type: 'TXT', data: 'v=DMARC1; p=reject' });
    // The SMTP host (never contacted here) and its reverse DNS (a documentation address, 192.0.2.10).
    dns.add(`smtp.${domain}`, { type: 'A', address: '192.0.2.10' });
    dns.add('10.2.0.192.in-addr.arpa', { type: 'PTR', domain: `mail.${domain}` });
    dns.add(`mail.${domain}`, { type: 'A', address: '192.0.2.10' });
    const id = await inboxOn(domain, false);
    const smtp = { host: `smtp.${domain}`, port: 587, secure: false, user: null, password: null };
    await q('UPDATE inboxes SET smtp_sealed = $2 WHERE id = $1', [id, sealSettings(smtp, id, 'smtp')]);
    const res = await api(app, t.token).get(`/inboxes/${id}/health`);
    expect(res.body.data.checks.filter((c: Check) => !c.ok || c.temperror)).toEqual([]);
    expect(res.body.data.verdict).toBe('pass');
    const checks = byName(res.body.data.checks);
    expect(Object.keys(checks).sort()).toEqual(['dkim', 'dmarc', 'mx', 'ptr', 'spf']);
    expect(checks.spf.detail).toMatch(/authorises the inbox's SMTP server \(192\.0\.2\.10\)/);
    expect(res.text).not.toContain(`smtp.${domain}`);
    expect(checks.dkim.detail).toMatch(/s2026/);
    expect(checks.ptr.detail).toMatch(new RegExp(`mail\\.${domain}`));

    // Without the PTR's forward record and with no MX: warn, not fail.
    const other = `warn-${randomUUID().slice(0, 8)}.test`;
    dns.add(other, { type: 'TXT', data: 'v=spf1 ip4:127.0.0.0/8 -all' });
    dns.add(`s2026._domainkey.${other}`, { type: 'TXT', data: dkimKey() });
    dns.add(`_dmarc.${other}`, { type: 'TXT', data: 'v=DMARC1; p=none' });
    const warnId = await inboxOn(other, false);
    const warn = await api(app, t.token).get(`/inboxes/${warnId}/health`);
    expect(warn.body.data.verdict).toBe('warn');
    expect(byName(warn.body.data.checks).mx).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/no MX record/),
    });
  });

  const backdate = (id: string, interval: string): Promise<unknown> =>
    q(
      `UPDATE inboxes SET health = jsonb_set(health, '{checked_at}', to_jsonb((now() - $2::interval)::text)) WHERE id = $1`,
      [id, interval],
    );
  /** A plain SMTP inbox on `domain` whose SMTP host is `host`. */
  const smtpInbox = async (domain: string, host: string): Promise<string> => {
    const id = await inboxOn(domain, false);
    const smtp = { host, port: 587, secure: false, user: null, password: null };
    await q('UPDATE inboxes SET smtp_sealed = $2 WHERE id = $1', [id, sealSettings(smtp, id, 'smtp')]);
    return id;
  };

  it('a hostile SPF (9 mx: of 10 hosts, an include loop) costs one bounded check, however many call at once', async () => {
    const domain = `hostile-${randomUUID().slice(0, 8)}.test`;
    const mechanisms = Array.from({ length: 9 }, (_, i) => `mx:m${i}.${domain}`).join(' ');
    dns.add(domain, { type: 'TXT', data: `v=spf1 ${mechanisms} -all` });
    for (let i = 0; i < 9; i++) {
      for (let h = 0; h < 10; h++) {
        dns.add(`m${i}.${domain}`, { type: 'MX', exchange: `h${h}.m${i}.${domain}`, priority: h });
        dns.add(`h${h}.m${i}.${domain}`, { type: 'A', address: `198.51.100.${h + 1}` });
      }
    }
    dns.add(`google._domainkey.${domain}`, { type: 'TXT', data: dkimKey() });
    dns.add(`_dmarc.${domain}`, { type: 'TXT', data: 'v=DMARC1; p=none' });
    const id = await inboxOn(domain, true);

    // 20 concurrent calls: one check's questions (the audit measured 194 for one call, 3,880 for 20).
    const before = dns.queries.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api(app, t.token).get(`/inboxes/${id}/health?refresh=true`)),
    );
    const twenty = dns.queries.length - before;
    for (const a of answers) expect(a.body.data).toEqual(answers[0].body.data);
    expect(byName(answers[0].body.data.checks).spf).toMatchObject({ ok: false, temperror: false });
    // RFC 7208's bound for this record (TXT, 9 MX, 9 × 10 A) plus MX, DKIM (2 selectors), DMARC.
    expect(twenty).toBeLessThanOrEqual(100 + 6);
    await backdate(id, '61 seconds');
    const one = dns.queries.length;
    await api(app, t.token).get(`/inboxes/${id}/health?refresh=true`);
    expect(twenty).toBe(dns.queries.length - one);

    // An include loop: stopped at the 11th lookup, a permerror (the record is wrong, not the DNS).
    const loop = `loop-${randomUUID().slice(0, 8)}.test`;
    dns.add(loop, { type: 'TXT', data: `v=spf1 include:again.${loop} -all` });
    dns.add(`again.${loop}`, { type: 'TXT', data: `v=spf1 include:${loop} -all` });
    const loopId = await inboxOn(loop, true);
    const start = dns.queries.length;
    const res = await api(app, t.token).get(`/inboxes/${loopId}/health`);
    const spfReads = dns.queries.slice(start).filter((x) => x === `TXT ${loop}` || x === `TXT again.${loop}`);
    expect(spfReads).toHaveLength(11);
    expect(dns.queries.length - start).toBeLessThanOrEqual(25);
    expect(byName(res.body.data.checks).spf).toMatchObject({
      ok: false,
      temperror: false,
      detail: expect.stringMatching(/invalid: more than 10 DNS lookups/),
    });
    expect(res.body.data.verdict).toBe('fail');
  });

  it('reverse DNS: 10 names at most, in parallel; a forward lookup that times out is temperror, not "does not resolve back"', async () => {
    const domain = `rdns-${randomUUID().slice(0, 8)}.test`;
    dns.add(domain, { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 -all' });
    dns.add(`s2026._domainkey.${domain}`, { type: 'TXT', data: dkimKey() });
    dns.add(`_dmarc.${domain}`, { type: 'TXT', data: 'v=DMARC1; p=none' });
    dns.add(domain, { type: 'MX', exchange: `mx.${domain}`, priority: 1 });
    dns.add(`smtp.${domain}`, { type: 'A', address: '192.0.2.77' });
    for (let i = 0; i < 20; i++) {
      dns.add('77.2.0.192.in-addr.arpa', { type: 'PTR', domain: `r${i}.${domain}` });
      dns.add(`r${i}.${domain}`, { type: 'A', address: '198.51.100.1' });
    }
    const id = await smtpInbox(domain, `smtp.${domain}`);
    const start = dns.queries.length;
    const res = await api(app, t.token).get(`/inboxes/${id}/health`);
    const ptr = byName(res.body.data.checks).ptr;
    expect(ptr).toMatchObject({ ok: false, temperror: false });
    expect(ptr.detail).toMatch(/does not resolve back to it/);
    const forward = dns.queries.slice(start).filter((x) => /^A r\d+\./.test(x));
    expect(forward).toHaveLength(10);

    // The one name that would confirm it does not answer: "try again", not an answer.
    const other = `rdns2-${randomUUID().slice(0, 8)}.test`;
    dns.add(other, { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 -all' });
    dns.add(`s2026._domainkey.${other}`, { type: 'TXT', data: dkimKey() });
    dns.add(`_dmarc.${other}`, { type: 'TXT', data: 'v=DMARC1; p=none' });
    dns.add(other, { type: 'MX', exchange: `mx.${other}`, priority: 1 });
    dns.add(`smtp.${other}`, { type: 'A', address: '192.0.2.78' });
    dns.add('78.2.0.192.in-addr.arpa', { type: 'PTR', domain: `mail.${other}` });
    dns.silentNames.add(`mail.${other}`);
    const id2 = await smtpInbox(other, `smtp.${other}`);
    const started = Date.now();
    const res2 = await api(app, t.token).get(`/inboxes/${id2}/health`);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(byName(res2.body.data.checks).ptr).toMatchObject({
      ok: false,
      temperror: true,
      detail: expect.stringMatching(/try again/),
    });
    expect(res2.body.data.verdict).toBe('warn');
  });

  it('a resolver that never answers: every check temperror within 10 s, cached 5 minutes, refreshed at most once a minute', async () => {
    const domain = `silent-${randomUUID().slice(0, 8)}.test`;
    dns.add(domain, { type: 'MX', exchange: `mx.${domain}`, priority: 1 });
    dns.add(domain, { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 -all' });
    dns.add(`s2026._domainkey.${domain}`, { type: 'TXT', data: dkimKey() });
    dns.add(`_dmarc.${domain}`, { type: 'TXT', data: 'v=DMARC1; p=none' });
    dns.add(`smtp.${domain}`, { type: 'A', address: '192.0.2.10' });
    const id = await smtpInbox(domain, `smtp.${domain}`);
    dns.silent = true;
    try {
      const started = Date.now();
      const res = await api(app, t.token).get(`/inboxes/${id}/health`);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(res.status).toBe(200);
      expect(res.body.data.verdict).toBe('warn');
      for (const c of res.body.data.checks as Check[]) {
        expect(c).toMatchObject({ ok: false, temperror: true, detail: expect.stringMatching(/try again/) });
      }
      // Kept 5 minutes, and a refresh within the minute is answered by it: no new question.
      const asked = dns.queries.length;
      expect((await api(app, t.token).get(`/inboxes/${id}/health`)).body.data).toEqual(res.body.data);
      expect((await api(app, t.token).get(`/inboxes/${id}/health?refresh=true`)).body.data).toEqual(
        res.body.data,
      );
      expect(dns.queries.length).toBe(asked);
      await backdate(id, '4 minutes');
      expect((await api(app, t.token).get(`/inboxes/${id}/health`)).body.data.checks).toEqual(
        res.body.data.checks,
      );
      expect(dns.queries.length).toBe(asked);
    } finally {
      dns.silent = false;
    }
    // Past 5 minutes the check runs again, and DNS answers now.
    await backdate(id, '301 seconds');
    const again = await api(app, t.token).get(`/inboxes/${id}/health`);
    expect(again.body.data.verdict).toBe('pass');
    expect((again.body.data.checks as Check[]).some((c) => c.temperror)).toBe(false);
  });

  it('another process checking the inbox (its claim on the row): the call waits for that answer and asks DNS nothing; an unfinished claim answers temperror', async () => {
    const domain = `claim-${randomUUID().slice(0, 8)}.test`;
    dns.add(domain, { type: 'MX', exchange: `mx.${domain}`, priority: 1 });
    const id = await inboxOn(domain, true);
    await q(`UPDATE inboxes SET health_checking_until = now() + interval '9 seconds' WHERE id = $1`, [id]);
    const before = dns.queries.length;
    const waiting = api(app, t.token).get(`/inboxes/${id}/health`);
    // The other process's answer lands on the row a second later and ends its claim.
    const theirs = {
      domain,
      checked_at: new Date().toISOString(),
      verdict: 'pass',
      checks: ['mx', 'spf', 'dkim', 'dmarc'].map((name) => ({
        name,
        ok: true,
        temperror: false,
        detail: 'x',
      })),
    };
    await new Promise((r) => setTimeout(r, 1000));
    await q(`UPDATE inboxes SET health = $2, health_checking_until = NULL WHERE id = $1`, [id, theirs]);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(theirs);
    expect(dns.queries.slice(before).filter((x) => x.includes(domain))).toEqual([]);

    // A claim whose process never answers: temperror once it lapses, within 10 s, still no question.
    const other = `claim2-${randomUUID().slice(0, 8)}.test`;
    const id2 = await inboxOn(other, true);
    await q(`UPDATE inboxes SET health_checking_until = now() + interval '9 seconds' WHERE id = $1`, [id2]);
    const started = Date.now();
    const lapsed = await api(app, t.token).get(`/inboxes/${id2}/health`);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lapsed.body.data.verdict).toBe('warn');
    for (const c of lapsed.body.data.checks as Check[])
      expect(c).toMatchObject({ ok: false, temperror: true });
    expect(dns.queries.filter((x) => x.includes(other))).toEqual([]);
    // The claim has lapsed: the next call checks.
    const next = await api(app, t.token).get(`/inboxes/${id2}/health`);
    expect((next.body.data.checks as Check[]).every((c) => !c.temperror)).toBe(true);
    expect(dns.queries.filter((x) => x.includes(other)).length).toBeGreaterThan(0);
  });

  it("404 for another tenant's inbox; 422 for a bad refresh; no host or secret in the answer", async () => {
    const domain = `x-${randomUUID().slice(0, 8)}.test`;
    const id = await inboxOn(domain, false);
    const other = await createTenant(app);
    expect((await api(app, other.token).get(`/inboxes/${id}/health`)).status).toBe(404);
    const bad = await api(app, t.token).get(`/inboxes/${id}/health?refresh=yes`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.field).toBe('refresh');
  });
});
