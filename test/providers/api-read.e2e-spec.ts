/**
 * Reading through the providers' own APIs (CONTRACT §25): replies, auto-replies and bounces
 * delivered into a fake Gmail or Graph mailbox are read within the poll interval and go through the
 * same mail reading as IMAP; an expired checkpoint (Gmail 404 on history, Graph 410 on delta) falls
 * back to a bounded re-read of the last 7 days that records nothing twice; a 429 on a read waits the
 * provider's Retry-After and reads on. The stored Message-ID a reply quotes is Gmail's own.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { asWorkspaceId } from '../../src/common/tenant/workspace-id.js';
import { connectOAuthInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { bounceMail, replyMail, startProviderFakes, type ProviderFakes } from '../helpers/provider-apis.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

describe('mail through the providers’ APIs: reading (fake Gmail API and Graph)', () => {
  let app: NestExpressApplication;
  let db: DataSource;
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
      API_POLL_SECONDS: '1',
      IMAP_LEASE_SECONDS: '10',
    });
    app = await bootApp();
    db = app.get(DataSource);
    t = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
    await fakes.close();
  });

  async function apiInbox(provider: 'google' | 'microsoft', email: string): Promise<string> {
    const { inbox } = await connectOAuthInbox(db, {
      workspaceId: asWorkspaceId(t.workspaceId),
      email,
      provider,
      refreshToken: await fakes.mintRefreshToken(email),
      transport: 'api',
    });
    return inbox.id;
  }

  /** Enrolls `names` (`<name>@leads.test`) in a two-step campaign over `inboxId`; waits for the first steps. */
  async function firstSteps(
    inboxId: string,
    names: string[],
  ): Promise<Map<string, { enrollmentId: number; messageId: string }>> {
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: 1,
      steps: [
        { subject: 'Quick question', body: 'Step one.' },
        { subject: null, body: 'Step two.', delay_minutes: 60 * 24 },
      ],
    });
    await q('UPDATE campaigns SET inbox_ids = $2 WHERE id = $1', [c.campaignId, [inboxId]]);
    const out = new Map<string, { enrollmentId: number; messageId: string }>();
    for (const n of names) {
      const contact = await seedContact(q, t.workspaceId, `${n}@leads.test`);
      out.set(n, {
        enrollmentId: await seedEnrollment(q, t.workspaceId, c.campaignId, contact),
        messageId: '',
      });
    }
    for (const [n, e] of out) {
      const row = await waitFor(
        () =>
          one<{ message_id: string } | undefined>(
            `SELECT message_id FROM messages WHERE enrollment_id = $1 AND direction = 'outbound' AND status = 'sent'`,
            [e.enrollmentId],
          ),
        `first step to ${n}`,
      );
      e.messageId = row!.message_id;
    }
    return out;
  }
  const inboundOf = (enrollmentId: number) =>
    db.query(
      `SELECT kind, message_id FROM messages WHERE enrollment_id = $1 AND direction = 'inbound' ORDER BY id`,
      [enrollmentId],
    ) as Promise<Array<{ kind: string; message_id: string }>>;
  const enrollmentState = (id: number) =>
    one<{ status: string; stop_reason: string | null }>(
      'SELECT status, stop_reason FROM enrollments WHERE id = $1',
      [id],
    );

  it('Gmail: a reply (quoting the Message-ID Gmail stored), an auto-reply and a bounce are read through history; an expired history is re-read without duplicates', async () => {
    const email = 'ida@gmail-read.test';
    fakes.gmail.ownMessageIds = true;
    const inboxId = await apiInbox('google', email);
    let sent;
    try {
      sent = await firstSteps(inboxId, ['rae', 'oof', 'bad']);
    } finally {
      fakes.gmail.ownMessageIds = false;
    }
    const rae = sent.get('rae')!;
    expect(rae.messageId).toMatch(/@mail\.gmail\.com>$/);
    // The reader has a checkpoint before the mail arrives.
    await waitFor(
      async () =>
        (await one<{ c: string | null }>('SELECT api_checkpoint AS c FROM inboxes WHERE id = $1', [inboxId]))
          .c,
      'first checkpoint',
    );
    const delivered = Date.now();
    fakes.gmail.deliver(
      email,
      replyMail({
        from: 'rae@leads.test',
        to: email,
        inReplyTo: rae.messageId,
        body: 'Yes, Thursday works.',
      }),
    );
    fakes.gmail.deliver(
      email,
      replyMail({
        from: 'oof@leads.test',
        to: email,
        inReplyTo: sent.get('oof')!.messageId,
        body: 'Out until Monday.',
        autoReply: true,
      }),
    );
    fakes.gmail.deliver(
      email,
      bounceMail({ from: email, to: 'bad@leads.test', original: sent.get('bad')!.messageId }),
    );
    await waitFor(
      async () => (await inboundOf(sent.get('bad')!.enrollmentId)).length === 1,
      'bounce read',
      60_000,
    );
    await waitFor(async () => (await inboundOf(rae.enrollmentId)).length === 1, 'reply read', 60_000);
    await waitFor(
      async () => (await inboundOf(sent.get('oof')!.enrollmentId)).length === 1,
      'auto-reply read',
      60_000,
    );
    expect(Date.now() - delivered).toBeLessThan(60_000);
    expect((await inboundOf(rae.enrollmentId))[0].kind).toBe('reply');
    expect(await enrollmentState(rae.enrollmentId)).toMatchObject({
      status: 'stopped',
      stop_reason: 'replied',
    });
    expect((await inboundOf(sent.get('oof')!.enrollmentId))[0].kind).toBe('auto_reply');
    expect((await enrollmentState(sent.get('oof')!.enrollmentId)).status).toBe('active');
    expect((await inboundOf(sent.get('bad')!.enrollmentId))[0].kind).toBe('bounce');
    expect(await enrollmentState(sent.get('bad')!.enrollmentId)).toMatchObject({
      status: 'stopped',
      stop_reason: 'bounced',
    });

    // History expires: the next read answers 404, the last 7 days are re-read, nothing recorded twice.
    const before = (
      await one<{ c: string }>('SELECT api_checkpoint AS c FROM inboxes WHERE id = $1', [inboxId])
    ).c;
    fakes.gmail.expireHistory(email);
    const oof = sent.get('oof')!;
    fakes.gmail.deliver(
      email,
      replyMail({
        from: 'oof@leads.test',
        to: email,
        inReplyTo: oof.messageId,
        body: 'Back now: tell me more.',
      }),
    );
    await waitFor(
      async () => (await inboundOf(oof.enrollmentId)).length === 2,
      'the reply after expiry read',
      60_000,
    );
    const historyCalls = fakes.gmail.requests.filter((r) => r.email === email && r.path.endsWith('/history'));
    expect(historyCalls.length).toBeGreaterThan(1);
    expect(fakes.gmail.requests.some((r) => r.email === email && r.path.endsWith('/users/me/messages'))).toBe(
      true,
    );
    await new Promise((r) => setTimeout(r, 2500));
    expect(await inboundOf(rae.enrollmentId)).toHaveLength(1);
    expect(await inboundOf(sent.get('bad')!.enrollmentId)).toHaveLength(1);
    expect(await inboundOf(oof.enrollmentId)).toHaveLength(2);
    const after = (
      await one<{ c: string }>('SELECT api_checkpoint AS c FROM inboxes WHERE id = $1', [inboxId])
    ).c;
    expect(Number(after)).toBeGreaterThan(Number(before));
  });

  it('Graph: a reply is read through the delta query (paged); a 429 waits Retry-After; an expired delta token (410) is re-read without duplicates', async () => {
    const email = 'jo@contoso-read.test';
    const inboxId = await apiInbox('microsoft', email);
    const sent = await firstSteps(inboxId, ['kai', 'lou', 'max']);
    await waitFor(
      async () =>
        (await one<{ c: string | null }>('SELECT api_checkpoint AS c FROM inboxes WHERE id = $1', [inboxId]))
          .c,
      'first delta link',
    );
    fakes.graph.failReads.push({ status: 429, retryAfter: '2' });
    for (const n of ['kai', 'lou', 'max']) {
      fakes.graph.deliver(
        email,
        replyMail({
          from: `${n}@leads.test`,
          to: email,
          inReplyTo: sent.get(n)!.messageId,
          body: `Reply from ${n}.`,
        }),
      );
    }
    for (const n of ['kai', 'lou', 'max']) {
      await waitFor(
        async () => (await inboundOf(sent.get(n)!.enrollmentId)).length === 1,
        `reply from ${n}`,
        60_000,
      );
      expect(await enrollmentState(sent.get(n)!.enrollmentId)).toMatchObject({
        status: 'stopped',
        stop_reason: 'replied',
      });
    }
    const link = (
      await one<{ c: string }>('SELECT api_checkpoint AS c FROM inboxes WHERE id = $1', [inboxId])
    ).c;
    expect(link).toContain('$deltatoken=');

    fakes.graph.expireDelta(email);
    const other = await firstSteps(inboxId, ['ned']);
    fakes.graph.deliver(
      email,
      replyMail({
        from: 'ned@leads.test',
        to: email,
        inReplyTo: other.get('ned')!.messageId,
        body: 'Ned here.',
      }),
    );
    await waitFor(
      async () => (await inboundOf(other.get('ned')!.enrollmentId)).length === 1,
      'reply after the 410',
      60_000,
    );
    await new Promise((r) => setTimeout(r, 2500));
    for (const n of ['kai', 'lou', 'max']) expect(await inboundOf(sent.get(n)!.enrollmentId)).toHaveLength(1);
    // The 429 was answered and waited out; the re-read fetched the earlier replies again (4 mails, 7 reads).
    expect(fakes.graph.failReads).toHaveLength(0);
    const mimeReads = fakes.graph.requests.filter((r) => r.email === email && r.path.endsWith('/$value'));
    expect(mimeReads.length).toBeGreaterThanOrEqual(7);
  });
});
