/**
 * OAuth 2.0 inboxes (CONTRACT §19) end to end, against local stand-ins speaking the real protocols:
 * a fake authorization server (authorize, token with PKCE S256 verified, user-info; test/helpers/
 * oauth-server.ts) and an SMTP server (smtp-server) that accepts only SASL XOAUTH2 with a current
 * access token. The flow connects an inbox that sends; a reused, expired or forged state connects
 * nothing; access tokens are refreshed once per expiry however many workers ask; `invalid_grant`
 * makes the inbox `reauth_required` (inbox.error) while the campaign's other inbox carries on; a
 * token endpoint that is down is transient; the IMAP reader signs in to an XOAUTH2-only Dovecot and
 * records a reply to a step it sent; no token appears in a log line, a view or an event.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { execFile, execFileSync } from 'node:child_process';
import { jest } from '@jest/globals';
import { ImapFlow } from 'imapflow';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { logger } from '../../src/common/logging/logger.js';
import { REDIS } from '../../src/common/redis/redis.module.js';
import { appConfig, resetConfig } from '../../src/config/app-config.js';
import { Inbox } from '../../src/modules/inboxes/entities/inbox.entity.js';
import { imapAuthFor } from '../../src/modules/inboxes/imap-auth.js';
import { Outbox } from '../../src/modules/events/outbox.js';
import { InboxTokens } from '../../src/modules/inboxes/oauth/inbox-tokens.service.js';
import { api, bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { dovecotAvailable, startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { startOAuthDovecot } from '../helpers/dovecot-oauth.js';
import { startOAuthServer, type FakeOAuthServer } from '../helpers/oauth-server.js';
import { waitFor } from '../helpers/wait.js';

describe('OAuth 2.0 inboxes (fake authorization server, XOAUTH2-only SMTP)', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let oauth: FakeOAuthServer;
  let sink: SmtpSink;
  let t: TestTenant;
  const q = (sql: string, params?: unknown[]): Promise<unknown> => db.query(sql, params);
  const one = async <T>(sql: string, params?: unknown[]): Promise<T> =>
    ((await db.query(sql, params)) as T[])[0];
  /** Everything the service said: log calls and HTTP answers (searched for tokens at the end). */
  const said: string[] = [];

  beforeAll(async () => {
    oauth = await startOAuthServer();
    sink = await startSmtpSink({ xoauth2: (user, token) => oauth.validAccess(user, token) });
    Object.assign(process.env, {
      OAUTH_GOOGLE_CLIENT_ID: oauth.clientId,
      OAUTH_GOOGLE_CLIENT_SECRET: oauth.clientSecret,
      OAUTH_GOOGLE_ISSUER: oauth.url,
      OAUTH_GOOGLE_AUTHORIZATION_URL: `${oauth.url}/authorize`,
      OAUTH_GOOGLE_TOKEN_URL: `${oauth.url}/token`,
      OAUTH_GOOGLE_USERINFO_URL: `${oauth.url}/userinfo`,
      GOOGLE_SMTP_HOST: '127.0.0.1',
      GOOGLE_SMTP_PORT: String(sink.port),
      GOOGLE_SMTP_SECURE: 'false',
      GOOGLE_IMAP_HOST: '127.0.0.1',
      GOOGLE_IMAP_PORT: '1',
      GOOGLE_IMAP_SECURE: 'false',
      SEND_TICK_MS: '50',
      SEND_MIN_GAP_SECONDS: '0',
      IMAP_POLL_SECONDS: '3600',
      OAUTH_RETURN_ORIGINS: 'https://app.example.com,http://localhost:3000',
    });
    delete process.env.OAUTH_MICROSOFT_CLIENT_ID;
    resetConfig();
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) {
      jest.spyOn(logger, level).mockImplementation(((...args: unknown[]) => {
        said.push(
          JSON.stringify(args, (_k, v: unknown) =>
            v instanceof Error ? { message: v.message, stack: v.stack } : v,
          ),
        );
      }) as never);
    }
    app = await bootApp();
    db = app.get(DataSource);
    t = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
    await sink.close();
    await oauth.close();
    jest.restoreAllMocks();
    // Later files of the same run share this process's environment.
    for (const name of Object.keys(process.env)) {
      if (
        /^(OAUTH_(GOOGLE|MICROSOFT)_|OAUTH_RETURN_ORIGINS|GOOGLE_(SMTP|IMAP)_|MICROSOFT_(SMTP|IMAP)_)/.test(
          name,
        )
      )
        delete process.env[name];
    }
    resetConfig();
  });

  const http = () => request(app.getHttpServer());
  const keep = <T extends { text: string }>(res: T): T => {
    said.push(res.text ?? '');
    return res;
  };

  /** Runs the flow as a browser would: start, the provider's consent (302), the callback. */
  async function connect(email: string, returnUrl?: string, provider = 'google') {
    oauth.nextEmail = email;
    const start = keep(
      await api(app, t.token)
        .post(`/inboxes/oauth/${provider}/start`)
        .send(returnUrl ? { return_url: returnUrl } : {}),
    );
    expect(start.status).toBe(201);
    const consent = await fetch(start.body.data.authorization_url as string, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`http://service.test/oauth/${provider}/callback`);
    const res = keep(await http().get(`${back.pathname}${back.search}`));
    // The flow's inboxes send through the provider's API; these tests are about SMTP and IMAP.
    await q(`UPDATE inboxes SET transport = 'smtp' WHERE email = $1`, [email]);
    return { start, back, res };
  }

  const inboxByEmail = (email: string) =>
    db.getRepository(Inbox).findOneByOrFail({ workspaceId: t.workspaceId, email });

  /** A one-step campaign over `inboxIds` with `n` due enrollments to `<prefix>N@<domain>`. */
  async function campaignOver(inboxIds: string[], n: number, prefix: string): Promise<number[]> {
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: [{ subject: 'Hi', body: 'One step.' }],
    });
    await q('UPDATE campaigns SET inbox_ids = $2 WHERE id = $1', [c.campaignId, inboxIds]);
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const contact = await seedContact(q, t.workspaceId, `${prefix}${i}@leads.test`);
      ids.push(await seedEnrollment(q, t.workspaceId, c.campaignId, contact));
    }
    return ids;
  }
  const completed = async (ids: number[]) =>
    (
      await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM enrollments WHERE id = ANY($1::bigint[]) AND status = 'completed'`,
        [ids],
      )
    ).n;

  it('connects an inbox through the flow (PKCE, state, user-info) that then sends over XOAUTH2', async () => {
    const { start, res } = await connect('ada@oauth-mail.test', 'https://app.example.com/inboxes');
    const authUrl = new URL(start.body.data.authorization_url as string);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('access_type')).toBe('offline');
    expect(authUrl.searchParams.get('scope')).toContain('https://mail.google.com/');
    expect(authUrl.searchParams.get('state')).toBe(start.body.data.state);
    expect(res.status).toBe(303);
    const to = new URL(res.headers.location as string);
    expect(`${to.origin}${to.pathname}`).toBe('https://app.example.com/inboxes');
    const inboxId = to.searchParams.get('inbox_id')!;
    const shown = keep(await api(app, t.token).get(`/inboxes/${inboxId}`));
    expect(shown.body.data).toMatchObject({
      email: 'ada@oauth-mail.test',
      provider: 'google',
      auth: 'oauth2',
      status: 'active',
    });
    const row = await inboxByEmail('ada@oauth-mail.test');
    expect(row.oauthSealed).toMatch(/^v2\./);
    expect(JSON.stringify(row)).not.toContain(oauth.refreshTokenOf('ada@oauth-mail.test')!);

    const ids = await campaignOver([inboxId], 3, 'ada-lead');
    await waitFor(async () => (await completed(ids)) === 3, '3 sends');
    const mails = sink.received.filter((m) => m.to[0].startsWith('ada-lead'));
    expect(mails).toHaveLength(3);
    for (const m of mails) expect(m.from).toBe('ada@oauth-mail.test');
    expect(sink.signIns.filter((s) => s.user === 'ada@oauth-mail.test').every((s) => s.ok)).toBe(true);
    expect(oauth.refreshCalls.get(oauth.refreshTokenOf('ada@oauth-mail.test')!)).toBe(1);
  });

  it('a reused, expired or forged state connects nothing; start answers 409 for a provider without a client id', async () => {
    const before = await db.getRepository(Inbox).count();
    // Reused: the first callback connected; the same URL again is refused.
    const { back, res } = await connect('bob@oauth-mail.test');
    expect(res.status).toBe(200);
    expect(res.text).toContain('bob@oauth-mail.test');
    const again = keep(await http().get(`${back.pathname}${back.search}`));
    expect(again.status).toBe(400);
    expect(again.text).toContain('invalid_state');
    // Forged: a state that was never signed, and one with a tampered signature.
    const forged = new URLSearchParams(back.search);
    forged.set('state', `${forged.get('state')!.split('.')[0]}.AAAA`);
    expect(keep(await http().get(`${back.pathname}?${forged}`)).status).toBe(400);
    expect(keep(await http().get(`${back.pathname}?code=x&state=made-up`)).status).toBe(400);
    // Expired: older than 10 minutes when the browser comes back.
    oauth.nextEmail = 'late@oauth-mail.test';
    const start = keep(
      await api(app, t.token)
        .post('/inboxes/oauth/google/start')
        .send({ return_url: 'https://app.example.com/x' }),
    );
    await q(`UPDATE oauth_flows SET expires_at = now() - interval '1 second'`);
    const consent = await fetch(start.body.data.authorization_url as string, { redirect: 'manual' });
    const late = new URL(consent.headers.get('location')!);
    const expired = keep(await http().get(`${late.pathname}${late.search}`));
    // An expired flow never redirects (its return_url may be long stale): the page says why.
    expect(expired.status).toBe(400);
    expect(expired.headers.location).toBeUndefined();
    expect(expired.text).toContain('expired_state');
    expect(await db.getRepository(Inbox).count()).toBe(before + 1); // bob only
    expect(await db.getRepository(Inbox).countBy({ email: 'late@oauth-mail.test' })).toBe(0);

    const ms = keep(await api(app, t.token).post('/inboxes/oauth/microsoft/start').send({}));
    expect(ms.status).toBe(409);
    expect(ms.body.error.type).toBe('conflict');
    // The CLI's words: both variables named in full.
    expect(ms.body.error.message).toContain('OAUTH_MICROSOFT_CLIENT_ID and OAUTH_MICROSOFT_CLIENT_SECRET');
    expect((await api(app, t.token).post('/inboxes/oauth/yahoo/start').send({})).status).toBe(404);
  });

  it('return_url must be on an allowed origin (OAUTH_RETURN_ORIGINS): another origin is 422 at the start, and an unknown flow never redirects', async () => {
    for (const bad of [
      'https://evil.example/phish',
      'https://app.example.com.evil.example/x',
      'http://app.example.com/x', // another scheme is another origin
      'https://app.example.com:8443/x',
    ]) {
      const res = keep(await api(app, t.token).post('/inboxes/oauth/google/start').send({ return_url: bad }));
      expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
      expect(res.body.error).toMatchObject({ type: 'validation_failed', field: 'return_url' });
      expect(res.body.error.message).toContain('OAUTH_RETURN_ORIGINS');
    }
    expect(await q('SELECT 1 FROM oauth_flows WHERE return_url LIKE $1', ['%evil%'])).toEqual([]);
    const ok = keep(
      await api(app, t.token)
        .post('/inboxes/oauth/google/start')
        .send({ return_url: 'http://localhost:3000/settings' }),
    );
    expect(ok.status).toBe(201);
    // A state that was never started (or already used) answers the page, never a redirect.
    const unknown = keep(await http().get(`/oauth/google/callback?code=x&state=${ok.body.data.state}x`));
    expect(unknown.status).toBe(400);
    expect(unknown.headers.location).toBeUndefined();
  });

  it('the token call gives up after 10 s (a hanging endpoint) and refuses an answer over 1 MiB; nothing is connected', async () => {
    const before = await db.getRepository(Inbox).count();
    oauth.hang = true;
    const hung = Date.now();
    try {
      const { res } = await connect('hang@oauth-mail.test', 'https://app.example.com/back');
      const took = Date.now() - hung;
      expect(res.status).toBe(303);
      expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('provider_unavailable');
      // 10 s, not openid-client's 30 s default (the client metadata's `timeout` was ignored).
      expect(took).toBeGreaterThanOrEqual(9_500);
      expect(took).toBeLessThan(15_000);
    } finally {
      oauth.hang = false;
    }
    expect(said.some((line) => line.includes('(timeout)'))).toBe(true);

    oauth.tokenAnswerBytes = 2 * 1024 * 1024;
    try {
      const { res } = await connect('big@oauth-mail.test', 'https://app.example.com/back');
      expect(res.status).toBe(303);
      expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('provider_unavailable');
    } finally {
      oauth.tokenAnswerBytes = null;
    }
    expect(said.some((line) => line.includes('response_too_large'))).toBe(true);
    // Just under the limit is read as usual (the padding is an unknown field).
    oauth.tokenAnswerBytes = 1000 * 1024;
    try {
      const { res } = await connect('near@oauth-mail.test', 'https://app.example.com/back');
      // No refresh token in that answer: refused for that reason, not for its size.
      expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('provider_unavailable');
    } finally {
      oauth.tokenAnswerBytes = null;
    }
    expect(said.filter((line) => line.includes('response_too_large'))).toHaveLength(1);
    expect(await db.getRepository(Inbox).count()).toBe(before);
  }, 40_000);

  it('reconnecting an inbox with another account (subject) of the same address answers 409; the same account reconnects', async () => {
    const first = await connect('zoe@oauth-mail.test', 'https://app.example.com/back');
    const inboxId = new URL(first.res.headers.location as string).searchParams.get('inbox_id')!;
    const bound = await inboxByEmail('zoe@oauth-mail.test');
    expect(bound.oauthSubject).toMatch(/^[0-9a-f]{20}$/);
    oauth.nextAccount = 'someone-else';
    try {
      const other = await connect('zoe@oauth-mail.test', 'https://app.example.com/back');
      expect(other.res.status).toBe(303);
      const to = new URL(other.res.headers.location as string);
      expect(to.searchParams.get('error')).toBe('account_mismatch');
      expect(to.searchParams.get('inbox_id')).toBeNull();
      const page = await connect('zoe@oauth-mail.test');
      expect(page.res.status).toBe(409);
      expect(page.res.text).toContain('account_mismatch');
    } finally {
      oauth.nextAccount = '';
    }
    // Untouched: the same grant, the same account.
    const after = await inboxByEmail('zoe@oauth-mail.test');
    expect(after.oauthSubject).toBe(bound.oauthSubject);
    expect(after.oauthSealed).toBe(bound.oauthSealed);
    // The account it was connected with reconnects it.
    const again = await connect('zoe@oauth-mail.test', 'https://app.example.com/back');
    expect(new URL(again.res.headers.location as string).searchParams.get('inbox_id')).toBe(inboxId);
  });

  it('refreshes a short-lived access token once per expiry however many workers ask', async () => {
    oauth.accessTtlSeconds = 4;
    await connect('cyd@oauth-mail.test');
    const inbox = await inboxByEmail('cyd@oauth-mail.test');
    const rt = oauth.refreshTokenOf('cyd@oauth-mail.test')!;
    // Two workers: this app's token service and another process's (its own memory, the same Redis).
    const first = app.get(InboxTokens);
    const second = new InboxTokens(db, app.get(Outbox), app.get<Redis>(REDIS));
    const ask = () =>
      Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).accessToken(inbox)));
    const round1 = await ask();
    expect(new Set(round1).size).toBe(1);
    expect(oauth.refreshCalls.get(rt)).toBe(1);
    expect(oauth.validAccess('cyd@oauth-mail.test', round1[0])).toBe(true);
    // A quarter of its life before expiry it is refreshed ahead, again once.
    await new Promise((r) => setTimeout(r, 3200));
    const round2 = await ask();
    expect(new Set(round2).size).toBe(1);
    expect(round2[0]).not.toBe(round1[0]);
    expect(oauth.refreshCalls.get(rt)).toBe(2);
    // And sends keep signing in with the current token.
    const ids = await campaignOver([inbox.id], 2, 'cyd-lead');
    await waitFor(async () => (await completed(ids)) === 2, '2 sends');
    expect(sink.signIns.filter((s) => s.user === 'cyd@oauth-mail.test').every((s) => s.ok)).toBe(true);
    oauth.accessTtlSeconds = 3600;
  });

  it('invalid_grant: the inbox becomes reauth_required with inbox.error, nothing more is sent from it, the other inbox carries the campaign', async () => {
    await connect('dee@oauth-mail.test');
    await connect('eve@oauth-mail.test');
    const dee = await inboxByEmail('dee@oauth-mail.test');
    const eve = await inboxByEmail('eve@oauth-mail.test');
    oauth.revoke('dee@oauth-mail.test');
    const ids = await campaignOver([dee.id, eve.id], 6, 'rot-lead');
    await waitFor(async () => (await completed(ids)) === 6, '6 sends');
    const mails = sink.received.filter((m) => m.to[0].startsWith('rot-lead'));
    expect(mails).toHaveLength(6);
    for (const m of mails) expect(m.from).toBe('eve@oauth-mail.test');
    expect(oauth.refreshCalls.get(oauth.refreshTokenOf('dee@oauth-mail.test')!)).toBe(1);

    const shown = keep(await api(app, t.token).get(`/inboxes/${dee.id}`));
    expect(shown.body.data).toMatchObject({
      status: 'reauth_required',
      last_error: expect.stringMatching(/invalid_grant/),
    });
    const events = (await q(
      `SELECT type, data FROM events WHERE workspace_id = $1 AND type = 'inbox.error'`,
      [t.workspaceId],
    )) as Array<{
      data: Record<string, unknown>;
    }>;
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual({
      inbox_id: dee.id,
      email: 'dee@oauth-mail.test',
      status: 'reauth_required',
      error: expect.stringMatching(/invalid_grant/),
    });
    // Resuming by PATCH is refused; connecting again through the flow makes it active.
    expect(keep(await api(app, t.token).patch(`/inboxes/${dee.id}`).send({ status: 'active' })).status).toBe(
      409,
    );
    await connect('dee@oauth-mail.test');
    expect((await inboxByEmail('dee@oauth-mail.test')).status).toBe('active');
  });

  it('a token endpoint that is down is transient: nothing sent, the inbox stays active, the step is retried later', async () => {
    await connect('fay@oauth-mail.test');
    const fay = await inboxByEmail('fay@oauth-mail.test');
    oauth.down = true;
    try {
      const [id] = await campaignOver([fay.id], 1, 'down-lead');
      await waitFor(
        async () =>
          (
            await one<{ later: boolean }>(
              // Deferred by the retry delay (5 minutes), not merely leased (10 minutes) by a claim.
              `SELECT next_step_at BETWEEN now() + interval '1 minute' AND now() + interval '6 minutes' AS later
               FROM enrollments WHERE id = $1`,
              [id],
            )
          ).later,
        'the step deferred',
      );
      expect((await inboxByEmail('fay@oauth-mail.test')).status).toBe('active');
      expect(sink.received.filter((m) => m.to[0].startsWith('down-lead'))).toHaveLength(0);
      expect(
        (await one<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE enrollment_id = $1', [id]))
          .n,
      ).toBe(0);
    } finally {
      oauth.down = false;
    }
  });

  it('inbox:connect --provider google --refresh-token-env connects with a refresh token obtained elsewhere', async () => {
    execFileSync(process.execPath, ['scripts/ensure-built.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    oauth.nextEmail = 'gus@oauth-mail.test';
    // A refresh token from the provider, as an operator would have it.
    await connect('gus@oauth-mail.test');
    const rt = oauth.refreshTokenOf('gus@oauth-mail.test')!;
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          'dist/cli.js',
          'inbox:connect',
          '--workspace',
          t.workspaceId,
          '--email',
          'gus@oauth-mail.test',
          '--provider',
          'google',
          '--refresh-token-env',
          'GUS_RT',
          '--json',
        ],
        { env: { ...process.env, GUS_RT: rt, RUN_MIGRATIONS: 'false', NODE_OPTIONS: '' }, timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? 1 : 0, stdout: String(stdout), stderr: String(stderr) }),
      ),
    );
    said.push(out.stdout, out.stderr);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(out.stdout)).toMatchObject({ email: 'gus@oauth-mail.test' });
    const gus = await inboxByEmail('gus@oauth-mail.test');
    expect(gus).toMatchObject({ provider: 'google', auth: 'oauth2', status: 'active' });
    const ids = await campaignOver([gus.id], 1, 'gus-lead');
    await waitFor(async () => (await completed(ids)) === 1, '1 send');
  }, 240_000);

  it('imapAuthFor signs an OAuth inbox in to a real IMAP server (Dovecot, XOAUTH2 checked by introspection) with imapflow', async () => {
    if (!dovecotAvailable()) throw new Error('dovecot is not installed: apt-get install -y dovecot-imapd');
    const dovecot = await startOAuthDovecot(`${oauth.url}/introspect`);
    try {
      await connect('ivy@oauth-mail.test');
      const ivy = await inboxByEmail('ivy@oauth-mail.test');
      // The IMAP reader's hook (imap-auth.ts), answered by InboxTokens for OAuth inboxes.
      const auth = await imapAuthFor(ivy);
      expect(auth).toEqual({ user: 'ivy@oauth-mail.test', accessToken: expect.any(String) });
      const signIn = async (a: typeof auth): Promise<number> => {
        const c = new ImapFlow({
          host: '127.0.0.1',
          port: dovecot.port,
          secure: false,
          auth: a,
          logger: false,
        });
        c.on('error', () => undefined);
        await c.connect();
        try {
          return (await c.mailboxOpen('INBOX')).exists;
        } finally {
          await c.logout();
        }
      };
      expect(await signIn(auth)).toBe(0);
      // A token the provider does not know is refused by the server.
      await expect(signIn({ user: 'ivy@oauth-mail.test', accessToken: 'at_forged' })).rejects.toThrow();
      // Another address's token does not sign in as ivy.
      await connect('jay@oauth-mail.test');
      const jay = await imapAuthFor(await inboxByEmail('jay@oauth-mail.test'));
      await expect(
        signIn({ user: 'ivy@oauth-mail.test', accessToken: (jay as { accessToken: string }).accessToken }),
      ).rejects.toThrow();
    } finally {
      await dovecot.stop();
    }
  });

  it('the IMAP reader reads an OAuth inbox over XOAUTH2 (Dovecot checking each token): a reply to a step it sent is recorded as a reply', async () => {
    if (!dovecotAvailable()) throw new Error('dovecot is not installed: apt-get install -y dovecot-imapd');
    const dovecot = await startOAuthDovecot(`${oauth.url}/introspect`);
    // This inbox is connected while the provider's IMAP server is the Dovecot (the others of the file
    // point at a closed port).
    process.env.GOOGLE_IMAP_PORT = String(dovecot.port);
    resetConfig();
    try {
      await connect('lea@oauth-mail.test');
      const lea = await inboxByEmail('lea@oauth-mail.test');
      const [enrollmentId] = await campaignOver([lea.id], 1, 'lea-lead');
      await waitFor(async () => (await completed([enrollmentId])) === 1, 'the step sent');
      const sent = await one<{ message_id: string }>(
        `SELECT message_id FROM messages WHERE enrollment_id = $1 AND direction = 'outbound'`,
        [enrollmentId],
      );
      // The reply lands in lea's mailbox (appended as lea, with her own token).
      const appender = new ImapFlow({
        host: '127.0.0.1',
        port: dovecot.port,
        secure: false,
        auth: await imapAuthFor(lea),
        logger: false,
      });
      appender.on('error', () => undefined);
      await appender.connect();
      await appender.append(
        'INBOX',
        [
          'From: Lead Zero <lea-lead0@leads.test>',
          'To: lea@oauth-mail.test',
          'Subject: Re: Hi',
          `Message-ID: <reply-lea-${Date.now()}@leads.test>`,
          `In-Reply-To: ${sent.message_id}`,
          `References: ${sent.message_id}`,
          'Date: Thu, 26 Nov 2026 05:00:00 +0000',
          'Content-Type: text/plain; charset=utf-8',
          '',
          'Sounds good, send me the details.',
          '',
        ].join('\r\n'),
      );
      await appender.logout();
      const inbound = await waitFor(
        async () => {
          const rows = (await q(
            `SELECT kind, from_address FROM messages WHERE enrollment_id = $1 AND direction = 'inbound'`,
            [enrollmentId],
          )) as Array<{ kind: string; from_address: string }>;
          return rows.length ? rows : null;
        },
        'the reply read from the OAuth inbox',
        60_000,
      );
      expect(inbound).toEqual([{ kind: 'reply', from_address: 'lea-lead0@leads.test' }]);
      const replied = await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'email.replied' AND (data->>'enrollment_id')::bigint = $2`,
        [t.workspaceId, enrollmentId],
      );
      expect(replied.n).toBe(1);
      expect((await inboxByEmail('lea@oauth-mail.test')).lastError).toBeNull();
    } finally {
      process.env.GOOGLE_IMAP_PORT = '1';
      resetConfig();
      await dovecot.stop();
    }
  });

  it('Microsoft: the address comes from the validated ID token (user-info refuses an Outlook-audience token); the inbox sends', async () => {
    Object.assign(process.env, {
      OAUTH_MICROSOFT_CLIENT_ID: oauth.clientId,
      OAUTH_MICROSOFT_CLIENT_SECRET: oauth.clientSecret,
      OAUTH_MICROSOFT_ISSUER: oauth.url,
      OAUTH_MICROSOFT_AUTHORIZATION_URL: `${oauth.url}/authorize`,
      OAUTH_MICROSOFT_TOKEN_URL: `${oauth.url}/token`,
      OAUTH_MICROSOFT_USERINFO_URL: `${oauth.url}/userinfo`,
      MICROSOFT_SMTP_HOST: '127.0.0.1',
      MICROSOFT_SMTP_PORT: String(sink.port),
      MICROSOFT_SMTP_SECURE: 'false',
    });
    resetConfig();
    oauth.microsoftStyle = true;
    try {
      const { res } = await connect('kim@contoso-mail.test', undefined, 'microsoft');
      expect(res.status).toBe(200);
      const kim = await inboxByEmail('kim@contoso-mail.test');
      expect(kim).toMatchObject({ provider: 'microsoft', auth: 'oauth2', status: 'active' });
      const ids = await campaignOver([kim.id], 1, 'kim-lead');
      await waitFor(async () => (await completed(ids)) === 1, '1 send');
      expect(sink.received.find((m) => m.to[0].startsWith('kim-lead'))?.from).toBe('kim@contoso-mail.test');
      // The address is the verified `email` (xms_edov), never `preferred_username` (alias.kim@…).
      expect(await db.getRepository(Inbox).countBy({ email: 'alias.kim@contoso-mail.test' })).toBe(0);
      // An `email` whose domain owner is not verified names no address: nothing is connected.
      oauth.microsoftEmailVerified = false;
      const unverified = await connect('lee@contoso-mail.test', undefined, 'microsoft');
      expect(unverified.res.status).toBe(400);
      expect(unverified.res.text).toContain('invalid_account');
      expect(await db.getRepository(Inbox).countBy({ email: 'lee@contoso-mail.test' })).toBe(0);
      expect(await db.getRepository(Inbox).countBy({ email: 'alias.lee@contoso-mail.test' })).toBe(0);
    } finally {
      oauth.microsoftStyle = false;
      oauth.microsoftEmailVerified = true;
    }
  });

  it("Microsoft with its endpoints moved and no OAUTH_MICROSOFT_ISSUER: the issuer comes from discovery, {tenantid} replaced by the token's tid", async () => {
    delete process.env.OAUTH_MICROSOFT_ISSUER;
    resetConfig();
    oauth.microsoftStyle = true;
    oauth.tenantIssuer = true;
    try {
      expect(appConfig().mailProviders.microsoft.issuer).toContain('{tenantid}');
      const { res } = await connect('max@contoso-mail.test', undefined, 'microsoft');
      expect(res.status).toBe(200);
      expect(await inboxByEmail('max@contoso-mail.test')).toMatchObject({
        provider: 'microsoft',
        status: 'active',
      });
    } finally {
      oauth.microsoftStyle = false;
      oauth.tenantIssuer = false;
    }
  });

  it('no access or refresh token in any log line, API answer or event', async () => {
    const events = JSON.stringify(
      await q('SELECT data FROM events WHERE workspace_id = $1', [t.workspaceId]),
    );
    const everything = [...said, events].join('\n');
    expect(said.length).toBeGreaterThan(10);
    expect(oauth.issued.length).toBeGreaterThan(5);
    for (const token of oauth.issued) expect(everything).not.toContain(token);
  });
});
