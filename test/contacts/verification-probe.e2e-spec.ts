/**
 * The SMTP probe of address verification against a local SMTP server (`smtp-server`) whose RCPT TO
 * answers per address, found through a local DNS server whose MX hosts point at 127.0.0.1: each
 * verdict through `POST /contacts/{id}/verify` and GET, no DATA ever, the per-MX limit (3 a minute
 * here), the Redis cache per address and per catch-all domain, the probe off by default, and MX
 * hosts on loopback addresses left alone unless allowed.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import { api, bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { REPLIES, startProbeSmtpServer, type ProbeSmtpServer } from '../helpers/probe-smtp.js';

// This file checks addresses (against its own DNS and SMTP servers); test/worker-env.ts turns checking off for the others.
process.env.VERIFY_ADDRESSES = 'true';
const PROBE_ENV = [
  'VERIFY_SMTP_PROBE',
  'VERIFY_SMTP_PORT',
  'VERIFY_PROBES_PER_MX_PER_MINUTE',
  'VERIFY_HELO_NAME',
  'VERIFY_PROBE_ALLOW_PRIVATE',
];

interface Verification {
  status: string;
  reasons: string[];
}

const run = randomUUID().slice(0, 8);
const d = (name: string): string => `${name}-${run}.test`;

/** Local parts the strict domains take; any other gets 550 5.1.1 (so a random address is refused). */
const MAILBOXES = /^(ok|info|p\d)$/;

function answerOf(address: string) {
  const [local, domain] = address.split('@');
  if (domain === d('all')) return REPLIES.accept;
  if (domain === d('grey')) return REPLIES.greylisted;
  if (domain === d('policy')) return REPLIES.policy;
  return MAILBOXES.test(local) ? REPLIES.accept : REPLIES.unknown;
}

interface Fixture {
  app: NestExpressApplication;
  smtp: ProbeSmtpServer;
  t: TestTenant;
  verify(email: string): Promise<{ verdict: Verification; ms: number; id: number }>;
}

/** DNS, SMTP and the app with `env`; contacts are inserted without a due time, so only the route checks them. */
function useProbeFixture(env: Record<string, string>): Fixture {
  const f = {} as Fixture;
  let dns: DnsServer;
  const ids = new Map<string, number>();
  beforeAll(async () => {
    f.smtp = await startProbeSmtpServer(answerOf);
    dns = await startDnsServer();
    for (const name of ['strict', 'all', 'grey', 'policy', 'limit', 'off']) {
      dns.add(d(name), { type: 'MX', exchange: `mx.${d(name)}`, priority: 10 });
      // A worse MX the probe must not use.
      dns.add(d(name), { type: 'MX', exchange: `backup.${d(name)}`, priority: 20 });
      dns.add(`mx.${d(name)}`, { type: 'A', address: '127.0.0.1' });
    }
    dns.add(d('aonly'), { type: 'A', address: '127.0.0.1' });
    // An MX that takes the connection and never greets (127.0.0.2), and one where nothing listens (127.0.0.3).
    dns.add(d('hung'), { type: 'MX', exchange: `mx.${d('hung')}`, priority: 10 });
    dns.add(`mx.${d('hung')}`, { type: 'A', address: '127.0.0.2' });
    dns.add(d('closed'), { type: 'MX', exchange: `mx.${d('closed')}`, priority: 10 });
    dns.add(`mx.${d('closed')}`, { type: 'A', address: '127.0.0.3' });
    Object.assign(process.env, {
      DNS_SERVERS: dns.address,
      IMAP_POLL_SECONDS: '3600',
      SEND_TICK_MS: '3600000',
      VERIFY_SMTP_PORT: String(f.smtp.port),
      ...env,
    });
    resetConfig();
    f.app = await bootApp();
    f.t = await createTenant(f.app);
    const db = f.app.get(DataSource);
    f.verify = async (email) => {
      // A second verify of an address re-checks the same contact.
      const [row] = (await db.query(
        `INSERT INTO contacts (workspace_id, email, verification_due_at) VALUES ($1, $2, NULL)
         ON CONFLICT DO NOTHING RETURNING id`,
        [f.t.workspaceId, email],
      )) as Array<{ id: number }>;
      const id = row?.id ?? ids.get(email);
      ids.set(email, id as number);
      const started = Date.now();
      const res = await api(f.app, f.t.token).post(`/contacts/${id}/verify`);
      const ms = Date.now() - started;
      expect([email, res.status]).toEqual([email, 200]);
      const got = await api(f.app, f.t.token).get(`/contacts/${id}`);
      expect(got.body.data.verification).toEqual(res.body.data.verification);
      return { verdict: res.body.data.verification as Verification, ms, id: id as number };
    };
  });
  afterAll(async () => {
    await f.app?.close();
    await f.smtp?.close();
    await dns?.close();
    for (const name of ['DNS_SERVERS', ...PROBE_ENV]) delete process.env[name];
    resetConfig();
  });
  return f;
}

const rcptsAt = (smtp: ProbeSmtpServer, domain: string): string[] =>
  smtp.sessions.flatMap((s) => s.rcptTo).filter((a) => a.endsWith(`@${domain}`));
const connectionsTo = (smtp: ProbeSmtpServer, domain: string): number =>
  smtp.sessions.filter((s) => s.rcptTo.some((a) => a.endsWith(`@${domain}`))).length;

describe('SMTP probe (VERIFY_SMTP_PROBE=true, local SMTP and DNS servers)', () => {
  const f = useProbeFixture({
    VERIFY_SMTP_PROBE: 'true',
    VERIFY_PROBES_PER_MX_PER_MINUTE: '3',
    VERIFY_HELO_NAME: 'probe.example.test',
    // The local servers are on loopback addresses.
    VERIFY_PROBE_ALLOW_PRIVATE: 'true',
  });

  it('an accepted address whose domain refuses a random one is valid; EHLO and the null sender as set', async () => {
    const { verdict, ms } = await f.verify(`ok@${d('strict')}`);
    expect(verdict).toMatchObject({ status: 'valid', reasons: [] });
    expect(ms).toBeLessThan(10_000);
    const [session] = f.smtp.sessions.filter((s) => s.rcptTo[0] === `ok@${d('strict')}`);
    expect(session.helo).toBe('probe.example.test');
    expect(session.mailFrom).toEqual(['']);
    expect(session.rcptTo).toHaveLength(2);
    expect(session.rcptTo[1]).toMatch(new RegExp(`^[0-9a-f]{16}@${d('strict')}$`));
  });

  it('550 5.1.1 for the address is invalid / mailbox_unknown', async () => {
    expect((await f.verify(`gone@${d('strict')}`)).verdict).toMatchObject({
      status: 'invalid',
      reasons: ['mailbox_unknown'],
    });
  });

  it('the address result is cached: verifying it again opens no connection', async () => {
    const before = f.smtp.sessions.length;
    expect((await f.verify(`ok@${d('strict')}`)).verdict.status).toBe('valid');
    expect((await f.verify(`gone@${d('strict')}`)).verdict.status).toBe('invalid');
    expect(f.smtp.sessions.length).toBe(before);
  });

  it('a domain accepting both addresses is catch-all (risky); its next address needs one RCPT, then none', async () => {
    expect((await f.verify(`a@${d('all')}`)).verdict).toMatchObject({
      status: 'risky',
      reasons: ['catch_all'],
    });
    expect(rcptsAt(f.smtp, d('all'))).toHaveLength(2);
    expect((await f.verify(`b@${d('all')}`)).verdict).toMatchObject({
      status: 'risky',
      reasons: ['catch_all'],
    });
    expect(rcptsAt(f.smtp, d('all'))).toEqual([`a@${d('all')}`, expect.any(String), `b@${d('all')}`]);
    await f.verify(`b@${d('all')}`);
    expect(connectionsTo(f.smtp, d('all'))).toBe(2);
  });

  it('450 greylisting is inconclusive: unknown, keeping the offline reasons, and not cached', async () => {
    expect((await f.verify(`jo@${d('grey')}`)).verdict).toMatchObject({ status: 'unknown', reasons: [] });
    expect((await f.verify(`info@${d('grey')}`)).verdict).toMatchObject({
      status: 'unknown',
      reasons: ['role'],
    });
    expect((await f.verify(`jo@${d('grey')}`)).verdict.status).toBe('unknown');
    expect(connectionsTo(f.smtp, d('grey'))).toBe(3);
  });

  it('a policy refusal (554 5.7.1) says nothing of the mailbox: unknown', async () => {
    expect((await f.verify(`jo@${d('policy')}`)).verdict).toMatchObject({ status: 'unknown', reasons: [] });
  });

  it('a domain with only an A record is probed at the domain itself', async () => {
    expect((await f.verify(`ok@${d('aonly')}`)).verdict).toMatchObject({ status: 'valid', reasons: [] });
    expect((await f.verify(`gone@${d('aonly')}`)).verdict).toMatchObject({
      status: 'invalid',
      reasons: ['mailbox_unknown'],
    });
    expect(connectionsTo(f.smtp, d('aonly'))).toBe(2);
  });

  it('at most 3 probes per MX host and minute: 5 addresses make 3 connections, the others are unknown', async () => {
    const verdicts: string[] = [];
    for (let i = 1; i <= 5; i++) verdicts.push((await f.verify(`p${i}@${d('limit')}`)).verdict.status);
    expect(connectionsTo(f.smtp, d('limit'))).toBe(3);
    expect(verdicts).toEqual(['valid', 'valid', 'valid', 'unknown', 'unknown']);
  });

  it('an MX that never greets, or refuses the connection, is unknown within the 10 s of the route', async () => {
    const sockets = new Set<Socket>();
    const hung: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hung.listen(f.smtp.port, '127.0.0.2', resolve));
    try {
      const silent = await f.verify(`ok@${d('hung')}`);
      expect(silent.verdict).toMatchObject({ status: 'unknown', reasons: [] });
      expect(silent.ms).toBeLessThan(10_000);
      expect(sockets.size).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hung.close(resolve));
    }
    const refused = await f.verify(`ok@${d('closed')}`);
    expect(refused.verdict).toMatchObject({ status: 'unknown', reasons: [] });
    expect(refused.ms).toBeLessThan(2000);
  }, 20_000);

  it('never sends DATA', () => {
    expect(f.smtp.sessions.length).toBeGreaterThan(5);
    expect(f.smtp.dataCalls()).toBe(0);
  });
});

describe('SMTP probe off by default', () => {
  const f = useProbeFixture({});

  it('no connection is made: the DNS verdict stands', async () => {
    expect((await f.verify(`gone@${d('off')}`)).verdict).toMatchObject({ status: 'valid', reasons: [] });
    expect(f.smtp.sessions).toHaveLength(0);
  });
});

describe('SMTP probe on, MX hosts on the own network not allowed (the default)', () => {
  const f = useProbeFixture({ VERIFY_SMTP_PROBE: 'true' });

  it('an MX host at a loopback address is not probed: unknown, no connection', async () => {
    // An address no probe has answered yet (ok@ is in the cache from above: it would need no connection).
    expect((await f.verify(`p9@${d('strict')}`)).verdict).toMatchObject({ status: 'unknown', reasons: [] });
    expect(f.smtp.sessions).toHaveLength(0);
  });
});
