/**
 * `GET /inboxes/{id}/health` (CONTRACT §19) against a local DNS server speaking real DNS over UDP:
 * a well-configured domain passes; one without DMARC and with an SPF record that does not authorise
 * its provider fails, naming both; answers are cached for an hour unless `?refresh=true`.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import { sealSettings } from '../../src/modules/inboxes/inbox-credentials.js';
import { api, bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { seedCampaign } from '../helpers/seed.js';

const dkimKey = (): string =>
  `v=DKIM1; k=rsa; p=${generateKeyPairSync('rsa', { modulusLength: 1024 })
    .publicKey.export({ type: 'spki', format: 'der' })
    .toString('base64')}`;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

describe('sending-domain health (real DNS over UDP)', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let dns: DnsServer;
  let t: TestTenant;
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
    process.env.DNS_SERVERS = dns.address;
    process.env.DKIM_SELECTORS = 's2026';
    process.env.IMAP_POLL_SECONDS = '3600';
    process.env.SEND_TICK_MS = '3600000';
    resetConfig();
    app = await bootApp();
    db = app.get(DataSource);
    t = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
    delete process.env.DKIM_SELECTORS;
    resetConfig();
  });

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

  it('fail naming the missing DMARC and the SPF record that does not authorise the provider; cached an hour, ?refresh=true reads again', async () => {
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
    expect(res.body.data.checks.filter((c: Check) => !c.ok)).toEqual([]);
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
