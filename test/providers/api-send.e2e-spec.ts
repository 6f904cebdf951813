/**
 * Sending through the providers' own APIs (CONTRACT §25) against local servers that speak them: a
 * Gmail API (test/helpers/fake-gmail.ts) and Microsoft Graph (fake-graph.ts), both checking each
 * bearer token against the local OAuth server (oauth-server.ts). Covered: the transport setting (the
 * consent flow's inboxes get `api`, PATCH and its 422s), a campaign sent through each API with its
 * headers intact and the stored Message-ID the one the provider keeps (Gmail's own read back), a
 * 429 with Retry-After holding the inbox and not the campaign, a hang after the body went out (in
 * doubt, sent once, paused for review), a 401 refreshed once, a second 401, and `invalid_grant`.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { simpleParser } from 'mailparser';
import { DataSource } from 'typeorm';
import { asWorkspaceId } from '../../src/common/tenant/workspace-id.js';
import { connectOAuthInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { api, bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import type { FakeGmail } from '../helpers/fake-gmail.js';
import type { FakeGraph } from '../helpers/fake-graph.js';
import type { FakeOAuthServer } from '../helpers/oauth-server.js';
import { startProviderFakes, type ProviderFakes } from '../helpers/provider-apis.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

describe('mail through the providers’ APIs: sending (fake Gmail API and Graph)', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let oauth: FakeOAuthServer;
  let gmail: FakeGmail;
  let graph: FakeGraph;
  let fakes: ProviderFakes;
  let t: TestTenant;
  const q = (sql: string, params?: unknown[]): Promise<unknown> => db.query(sql, params);
  const one = async <T>(sql: string, params?: unknown[]): Promise<T> =>
    ((await db.query(sql, params)) as T[])[0];

  beforeAll(async () => {
    fakes = await startProviderFakes({
      SEND_TICK_MS: '50',
      SEND_MIN_GAP_SECONDS: '0',
      IMAP_POLL_SECONDS: '3600',
      // One send may take 5 s (a third of the lease) before it is given up.
      SEND_LEASE_SECONDS: '15',
      API_POLL_SECONDS: '3600',
    });
    ({ oauth, gmail, graph } = fakes);
    app = await bootApp();
    db = app.get(DataSource);
    t = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
    await fakes.close();
  });

  /** A refresh token from the OAuth server's own authorization-code flow (PKCE), as a provider gives one. */
  const mintRefreshToken = (email: string): Promise<string> => fakes.mintRefreshToken(email);

  async function apiInbox(provider: 'google' | 'microsoft', email: string): Promise<string> {
    const { inbox } = await connectOAuthInbox(db, {
      workspaceId: asWorkspaceId(t.workspaceId),
      email,
      provider,
      refreshToken: await mintRefreshToken(email),
      transport: 'api',
    });
    return inbox.id;
  }

  /** A one-step campaign over `inboxIds` with `n` due enrollments to `<prefix>N@leads.test`. */
  async function campaignOver(inboxIds: string[], n: number, prefix: string): Promise<number[]> {
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: 1,
      steps: [{ subject: 'Quick question', body: 'One step, {{ first_name }}.' }],
    });
    await q('UPDATE campaigns SET inbox_ids = $2 WHERE id = $1', [c.campaignId, inboxIds]);
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const contact = await seedContact(q, t.workspaceId, `${prefix}${i}@leads.test`);
      ids.push(await seedEnrollment(q, t.workspaceId, c.campaignId, contact));
    }
    return ids;
  }
  const statuses = async (ids: number[]): Promise<string[]> =>
    (
      (await db.query(`SELECT status FROM enrollments WHERE id = ANY($1::bigint[]) ORDER BY id`, [
        ids,
      ])) as Array<{
        status: string;
      }>
    ).map((r) => r.status);
  const outbound = (enrollmentId: number) =>
    one<{ status: string; message_id: string; error: string | null; from_address: string }>(
      `SELECT status, message_id, error, from_address FROM messages WHERE enrollment_id = $1 AND direction = 'outbound'`,
      [enrollmentId],
    );

  it('the consent flow connects an inbox with transport api and asks for the API scopes; PATCH switches it (422 for a password inbox or an unknown value)', async () => {
    oauth.nextEmail = 'flow@gmail-api.test';
    const start = await api(app, t.token).post('/inboxes/oauth/google/start').send({});
    expect(start.status).toBe(201);
    const scope = new URL(start.body.data.authorization_url as string).searchParams.get('scope')!;
    expect(scope.split(' ')).toEqual(
      expect.arrayContaining([
        'https://www.googleapis.com/auth/gmail.send',
        'https://www.googleapis.com/auth/gmail.readonly',
      ]),
    );
    const ms = await api(app, t.token).post('/inboxes/oauth/microsoft/start').send({});
    const msScope = new URL(ms.body.data.authorization_url as string).searchParams.get('scope')!.split(' ');
    expect(msScope).toEqual(
      expect.arrayContaining([
        'https://graph.microsoft.com/Mail.Send',
        'https://graph.microsoft.com/Mail.Read',
        'offline_access',
      ]),
    );
    const consent = await fetch(start.body.data.authorization_url as string, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const { default: request } = await import('supertest');
    const cb = await request(app.getHttpServer()).get(`${back.pathname}${back.search}`);
    expect(cb.status).toBe(200);
    const row = await one<{ id: string; transport: string }>(
      `SELECT id, transport FROM inboxes WHERE workspace_id = $1 AND email = 'flow@gmail-api.test'`,
      [t.workspaceId],
    );
    expect(row.transport).toBe('api');
    const shown = await api(app, t.token).get(`/inboxes/${row.id}`);
    expect(shown.body.data).toMatchObject({ transport: 'api', auth: 'oauth2', provider: 'google' });

    const toSmtp = await api(app, t.token).patch(`/inboxes/${row.id}`).send({ transport: 'smtp' });
    expect(toSmtp.status).toBe(200);
    expect(toSmtp.body.data.transport).toBe('smtp');
    const back2 = await api(app, t.token).patch(`/inboxes/${row.id}`).send({ transport: 'api' });
    expect(back2.body.data.transport).toBe('api');
    const bad = await api(app, t.token).patch(`/inboxes/${row.id}`).send({ transport: 'imap' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ type: 'validation_failed', field: 'transport' });

    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: 1 });
    const password = await api(app, t.token).patch(`/inboxes/${c.inboxIds[0]}`).send({ transport: 'api' });
    expect(password.status).toBe(422);
    expect(password.body.error).toMatchObject({ type: 'validation_failed', field: 'transport' });
    expect((await api(app, t.token).get(`/inboxes/${c.inboxIds[0]}`)).body.data.transport).toBe('smtp');
  });

  it('a campaign sends through the Gmail API: headers intact, the stored Message-ID is the one Gmail keeps (its own read back)', async () => {
    const inboxId = await apiInbox('google', 'ann@gmail-api.test');
    const ids = await campaignOver([inboxId], 2, 'ann-lead');
    await waitFor(async () => (await statuses(ids)).every((s) => s === 'completed'), 'two Gmail API sends');
    const sent = gmail.sent('ann@gmail-api.test');
    expect(sent).toHaveLength(2);
    for (const [i, id] of ids.entries()) {
      const row = await outbound(id);
      expect(row.status).toBe('sent');
      const raw = sent.find((s) => s.includes(`ann-lead${i}@leads.test`))!.replace(/\r?\n[ \t]+/g, ' ');
      const mail = await simpleParser(raw);
      expect(mail.messageId).toBe(row.message_id);
      expect(mail.from?.value[0].address).toBe('ann@gmail-api.test');
      expect(mail.subject).toBe('Quick question');
      expect(raw).toMatch(/^List-Unsubscribe: +<http[^>]+>\r?$/m);
      expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    }
    expect(gmail.requests.filter((r) => r.path.endsWith('/messages/send'))).toHaveLength(2);

    // Gmail assigning its own Message-ID: the stored one is Gmail's, read back after the send.
    gmail.ownMessageIds = true;
    try {
      const [own] = await campaignOver([inboxId], 1, 'ann-own');
      await waitFor(async () => (await statuses([own]))[0] === 'completed', 'a send with Gmail’s Message-ID');
      const row = await outbound(own);
      const stored = await simpleParser(
        gmail.sent('ann@gmail-api.test').find((s) => s.includes('ann-own0@'))!,
      );
      expect(stored.messageId).toMatch(/^<CA[0-9a-f]+@mail\.gmail\.com>$/);
      expect(row.message_id).toBe(stored.messageId);
    } finally {
      gmail.ownMessageIds = false;
    }
  });

  it('a campaign sends through Microsoft Graph sendMail (MIME, base64): headers intact, a Graph-scoped token', async () => {
    const inboxId = await apiInbox('microsoft', 'bo@contoso-graph.test');
    const ids = await campaignOver([inboxId], 2, 'bo-lead');
    await waitFor(async () => (await statuses(ids)).every((s) => s === 'completed'), 'two Graph sends');
    const sent = graph.sent('bo@contoso-graph.test');
    expect(sent).toHaveLength(2);
    for (const [i, id] of ids.entries()) {
      const row = await outbound(id);
      const mail = await simpleParser(sent.find((s) => s.includes(`bo-lead${i}@leads.test`))!);
      expect(mail.messageId).toBe(row.message_id);
      expect(mail.from?.value[0].address).toBe('bo@contoso-graph.test');
      expect(mail.text?.trim()).toMatch(/^One step/);
    }
    // Microsoft issues a token per resource: the refresh asked for Graph's scopes.
    expect(oauth.refreshScopes.some((s) => s.includes('https://graph.microsoft.com/Mail.Send'))).toBe(true);
  });

  it('429 with Retry-After holds the inbox, not the campaign: the other inbox sends, the held one waits', async () => {
    const held = await apiInbox('google', 'cat@gmail-api.test');
    const other = await apiInbox('microsoft', 'dan@contoso-graph.test');
    gmail.failSends.push({ status: 429, retryAfter: '120' });
    const ids = await campaignOver([held, other], 4, 'cat-lead');
    await waitFor(
      async () => (await statuses(ids)).filter((s) => s === 'completed').length === 3,
      'three sends through the inbox not held',
    );
    const inbox = await one<{ send_held_until: Date; status: string; last_error: string }>(
      'SELECT send_held_until, status, last_error FROM inboxes WHERE id = $1',
      [held],
    );
    const heldFor = (new Date(inbox.send_held_until).getTime() - Date.now()) / 1000;
    expect(heldFor).toBeGreaterThan(100);
    expect(heldFor).toBeLessThanOrEqual(120);
    expect(inbox.status).toBe('active');
    expect(inbox.last_error).toContain('429');
    expect(
      (
        await one<{ status: string }>(
          'SELECT c.status FROM campaigns c JOIN enrollments e ON e.campaign_id = c.id WHERE e.id = $1',
          [ids[0]],
        )
      ).status,
    ).toBe('active');
    const waiting = (
      (await db.query(
        `SELECT id, status, next_step_at FROM enrollments WHERE id = ANY($1::bigint[]) AND status <> 'completed'`,
        [ids],
      )) as Array<{ id: number; status: string; next_step_at: Date }>
    )[0];
    expect(waiting.status).toBe('active');
    const waitsFor = (new Date(waiting.next_step_at).getTime() - Date.now()) / 1000;
    expect(waitsFor).toBeGreaterThan(100);
    // Sends of the same tick already under way when the 429 came may have gone out; none after it.
    const beforeHold = gmail.sent('cat@gmail-api.test').length;
    // Due again now: rotation passes over the held inbox.
    await q('UPDATE enrollments SET next_step_at = now() WHERE id = $1', [waiting.id]);
    await waitFor(async () => (await statuses([Number(waiting.id)]))[0] === 'completed', 'the fourth send');
    expect((await outbound(Number(waiting.id))).from_address).toBe('dan@contoso-graph.test');
    expect(gmail.sent('cat@gmail-api.test')).toHaveLength(beforeHold);
  });

  it('a hang after the request body went out is in doubt: sent once, never again, the enrollment paused for review', async () => {
    const inboxId = await apiInbox('microsoft', 'eve@contoso-graph.test');
    graph.failSends.push('hang');
    const [id] = await campaignOver([inboxId], 1, 'eve-lead');
    await waitFor(async () => (await statuses([id]))[0] === 'paused', 'paused in doubt', 20_000);
    const row = await outbound(id);
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/^outcome unknown: step 1 was handed to the provider's API/);
    const e = await one<{ stop_note: string }>('SELECT stop_note FROM enrollments WHERE id = $1', [id]);
    expect(e.stop_note).toBe(row.error);
    await new Promise((r) => setTimeout(r, 1000));
    expect(graph.sent('eve@contoso-graph.test')).toHaveLength(1);
    expect(
      graph.requests.filter((r) => r.path.endsWith('/sendMail') && r.email === 'eve@contoso-graph.test'),
    ).toHaveLength(1);
  });

  it('a 401 refreshes the token once and sends; a second 401 sends nothing and shows on the inbox', async () => {
    const inboxId = await apiInbox('google', 'fay@gmail-api.test');
    const rt = oauth.refreshTokenOf('fay@gmail-api.test')!;
    gmail.unauthorizedNext = 1;
    const [first] = await campaignOver([inboxId], 1, 'fay-lead');
    await waitFor(async () => (await statuses([first]))[0] === 'completed', 'sent after one refresh');
    expect(gmail.sent('fay@gmail-api.test')).toHaveLength(1);
    expect(oauth.refreshCalls.get(rt)).toBe(2);

    gmail.unauthorizedNext = 2;
    const [second] = await campaignOver([inboxId], 1, 'fay-two');
    await waitFor(
      async () =>
        (await one<{ status: string }>('SELECT status FROM inboxes WHERE id = $1', [inboxId])).status ===
        'error',
      'inbox in error',
    );
    expect(oauth.refreshCalls.get(rt)).toBe(3);
    expect(gmail.sent('fay@gmail-api.test')).toHaveLength(1);
    expect(
      (await one<{ last_error: string }>('SELECT last_error FROM inboxes WHERE id = $1', [inboxId]))
        .last_error,
    ).toContain('401');
    expect(await statuses([second])).toEqual(['active']);
    expect(await db.query(`SELECT 1 FROM messages WHERE enrollment_id = $1`, [second])).toHaveLength(0);
  });

  it('invalid_grant on the refresh after a 401: reauth_required with inbox.error, nothing sent, the other inbox carries on', async () => {
    const refused = await apiInbox('microsoft', 'gil@contoso-graph.test');
    const other = await apiInbox('google', 'hal@gmail-api.test');
    // Warm the token, then revoke the grant: the next 401 finds the refresh refused.
    const [warm] = await campaignOver([refused], 1, 'gil-warm');
    await waitFor(async () => (await statuses([warm]))[0] === 'completed', 'first send');
    oauth.revoke('gil@contoso-graph.test');
    graph.unauthorizedNext = 1;
    const ids = await campaignOver([refused, other], 2, 'gil-lead');
    await waitFor(
      async () => (await statuses(ids)).every((s) => s === 'completed'),
      'both sent by the other inbox',
    );
    const inbox = await one<{ status: string }>('SELECT status FROM inboxes WHERE id = $1', [refused]);
    expect(inbox.status).toBe('reauth_required');
    expect(graph.sent('gil@contoso-graph.test')).toHaveLength(1);
    for (const id of ids) expect((await outbound(id)).from_address).toBe('hal@gmail-api.test');
    const events = (await db.query(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'inbox.error'`,
      [t.workspaceId],
    )) as Array<{ data: { inbox_id: string; status: string } }>;
    expect(events.some((e) => e.data.inbox_id === refused && e.data.status === 'reauth_required')).toBe(true);
  });
});
