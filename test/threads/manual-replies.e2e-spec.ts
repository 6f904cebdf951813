/**
 * Replies from the API (`POST /threads/{id}/messages`) against a real SMTP server (smtp-server):
 * threaded under the latest message with the unsubscribe headers, listed in the thread, counted
 * against the inbox's daily limit atomically with other sends, at most once (Idempotency-Key replays,
 * an unknown outcome is never resent, a crash leaves nothing to resend), and refused for suppressed
 * contacts, inactive inboxes and full days.
 */
import request from 'supertest';
import { api, createTenant, type TestTenant, useApp, app, q, one, workspaceKey } from '../helpers/app.js';
import { startSmtpSink, type DataEndAction, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedContact, seedEnrollment, FIRST_STEP_NOW } from '../helpers/seed.js';
import type { SeededCampaign } from '../helpers/seed.js';
import { ManualReplySweeper, STALE_SECONDS } from '../../src/modules/sending/manual/manual-reply-sweeper.js';
import { waitFor } from '../helpers/wait.js';

interface Sent {
  contactId: number;
  threadId: number;
  messageId: string;
}

describe('manual replies (POST /threads/{id}/messages, real SMTP)', () => {
  useApp({
    env: { SEND_TICK_MS: '50', SEND_MIN_GAP_SECONDS: '0', PUBLIC_URL: 'https://outreach.example.com' },
  });
  let sink: SmtpSink;
  let t: TestTenant;
  let c: SeededCampaign;
  let dataEnd: DataEndAction = 'accept';
  let refuse: string | null = null;
  const sent = new Map<string, Sent>();
  const reply = (threadId: number, body: Record<string, unknown>, key?: string) => {
    const req = api(app, t.token).post(`/threads/${threadId}/messages`).send(body);
    return key ? req.set('Idempotency-Key', key) : req;
  };
  const sentToday = async () =>
    (await one<{ sent_today: number }>('SELECT sent_today FROM inboxes WHERE id = $1', [c.inboxIds[0]]))
      .sent_today;
  const mailsTo = (address: string) => sink.received.filter((r) => r.to.includes(address));

  beforeAll(async () => {
    sink = await startSmtpSink({
      dataEnd: () => dataEnd,
      rejectRecipient: (address) => (address === refuse ? 550 : undefined),
    });
    t = await createTenant(app);
    c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      domain: 'replies.test',
      steps: FIRST_STEP_NOW,
    });
    for (const who of ['pat', 'ida', 'unk', 'bob', 'sue', 'cap', 'lat']) {
      const contactId = await seedContact(q, t.workspaceId, `${who}@example.com`, { first_name: who });
      await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
      sent.set(who, { contactId, threadId: 0, messageId: '' });
    }
    const rows = await waitFor(async () => {
      const found = (await q(
        `SELECT to_address, thread_id, message_id FROM messages WHERE workspace_id = $1 AND status = 'sent'`,
        [t.workspaceId],
      )) as Array<{ to_address: string; thread_id: number; message_id: string }>;
      return found.length === sent.size ? found : null;
    }, 'first steps sent');
    for (const r of rows)
      Object.assign(sent.get(r.to_address.split('@')[0])!, {
        threadId: r.thread_id,
        messageId: r.message_id,
      });
  }, 60_000);

  afterAll(async () => {
    await sink.close();
    delete process.env.PUBLIC_URL;
  });

  it('sends in the thread under its latest message, with the unsubscribe headers; listed in the thread; message.sent', async () => {
    const pat = sent.get('pat')!;
    // The contact answered step 1: that answer is now the latest message of the thread.
    const answerId = '<pat-answer-1@example.com>';
    const inbound = await request(app.getHttpServer())
      .post(`/api/v1/inbound/${c.inboxIds[0]}`)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'message/rfc822')
      .send(
        `From: pat@example.com\r\nTo: sender1@replies.test\r\nSubject: Re: Hello pat\r\nMessage-ID: ${answerId}\r\nIn-Reply-To: ${pat.messageId}\r\nReferences: ${pat.messageId}\r\n\r\nSounds good, when?\r\n`,
      );
    expect(inbound.body.data).toMatchObject({ status: 'recorded', kind: 'reply' });
    const before = await sentToday();

    const res = await reply(pat.threadId, { body: 'Thursday at 10?\n\nSam' });
    expect(res.status).toBe(201);
    const message = res.body.data as Record<string, unknown>;
    expect(message).toMatchObject({
      thread_id: pat.threadId,
      kind: 'manual',
      direction: 'outbound',
      status: 'sent',
      from: 'sender1@replies.test',
      to: 'pat@example.com',
      subject: 'Re: Hello pat',
      body: 'Thursday at 10?\n\nSam',
      in_reply_to: answerId,
      step_position: null,
      error: null,
      sent_at: expect.any(String),
    });

    const [mail] = mailsTo('pat@example.com').filter((r) => r.parsed.messageId === message.message_id);
    expect(mail).toBeDefined();
    expect(mail.parsed.subject).toBe('Re: Hello pat');
    expect(mail.parsed.inReplyTo).toBe(answerId);
    expect(mail.parsed.references).toEqual([pat.messageId, answerId]);
    expect(mail.parsed.text?.trim()).toBe('Thursday at 10?\n\nSam');
    const head = mail.raw
      .toString('utf8')
      .split(/\r?\n\r?\n/)[0]
      .replace(/\r?\n[ \t]+/g, ' ');
    const header = (name: string) => new RegExp(`^${name}:[ \t]*(.*)$`, 'im').exec(head)?.[1]?.trim();
    const unsubscribe = /^<https:\/\/outreach\.example\.com(\/u\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)>$/.exec(
      header('List-Unsubscribe') ?? '',
    );
    expect(unsubscribe).not.toBeNull();
    expect(header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');

    const listed = await api(app, t.token).get(`/threads/${pat.threadId}/messages`);
    expect(listed.body.data.map((m: { kind: string }) => m.kind)).toEqual(['manual', 'reply', 'email']);
    expect(listed.body.data[0]).toEqual(message);
    const thread = await api(app, t.token).get(`/threads/${pat.threadId}`);
    expect(thread.body.data.message_count).toBe(3);
    expect(await sentToday()).toBe(before + 1);
    const ev = await one<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'message.sent' AND data::jsonb->'message'->>'kind' = 'manual'`,
      [t.workspaceId],
    );
    expect(ev.data).toEqual({
      message,
      enrollment_id: expect.any(Number),
      campaign_id: c.campaignId,
      contact_id: pat.contactId,
    });

    // A later reply threads under the manual one, with the subject given.
    const next = await reply(pat.threadId, { body: 'Invite sent.', subject: 'Invitation: Thursday' });
    expect(next.status).toBe(201);
    expect(next.body.data).toMatchObject({
      subject: 'Invitation: Thursday',
      in_reply_to: message.message_id,
    });

    // has_reply: the thread with an answer, and only it.
    const withReply = await api(app, t.token).get('/threads?has_reply=true');
    expect(withReply.body.data.map((x: { id: number }) => x.id)).toEqual([pat.threadId]);
    const without = await api(app, t.token).get('/threads?has_reply=false');
    expect(without.body.data).toHaveLength(sent.size - 1);
    expect((await api(app, t.token).get('/threads?has_reply=yes')).body.error).toMatchObject({
      type: 'validation_failed',
      field: 'has_reply',
    });

    // The one-click link of the manual reply works like a campaign step's.
    const http = request(app.getHttpServer());
    const done = await http.post(unsubscribe![1]).type('form').send('List-Unsubscribe=One-Click');
    expect(done.status).toBe(200);
    expect(
      await one('SELECT reason FROM suppressions WHERE workspace_id = $1 AND email = $2', [
        t.workspaceId,
        'pat@example.com',
      ]),
    ).toEqual({ reason: 'unsubscribed' });
  });

  it('an Idempotency-Key replay does not send twice, also after a crash left the reply unresolved', async () => {
    const ida = sent.get('ida')!;
    const first = await reply(ida.threadId, { body: 'Once only' }, 'ida-1');
    expect(first.status).toBe(201);
    const replay = await reply(ida.threadId, { body: 'Once only' }, 'ida-1');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(mailsTo('ida@example.com').filter((m) => m.parsed.text?.includes('Once only'))).toHaveLength(1);

    // A process that died mid-send: the reply is left `sending` and the key's claim has lapsed.
    await q(`UPDATE messages SET status = 'sending', sent_at = NULL WHERE id = $1`, [first.body.data.id]);
    await q(`DELETE FROM idempotency_keys WHERE key = 'ida-1'`);
    const retry = await reply(ida.threadId, { body: 'Once only' }, 'ida-1');
    expect(retry.status).toBe(202);
    expect(retry.body.data).toMatchObject({ id: first.body.data.id, status: 'failed' });
    expect(retry.body.data.error).toMatch(/^outcome unknown: /);
    expect(mailsTo('ida@example.com').filter((m) => m.parsed.text?.includes('Once only'))).toHaveLength(1);
  });

  it('an unknown SMTP outcome (connection lost after DATA) is answered 202, failed, and never resent', async () => {
    const unk = sent.get('unk')!;
    const data = sink.dataCount();
    dataEnd = 'drop';
    const res = await reply(unk.threadId, { body: 'Did this arrive?' }, 'unk-1');
    dataEnd = 'accept';
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ kind: 'manual', status: 'failed', sent_at: null });
    expect(res.body.data.error).toMatch(/^outcome unknown: the reply was handed to the SMTP server/);
    const again = await reply(unk.threadId, { body: 'Did this arrive?' }, 'unk-1');
    expect(again.status).toBe(202);
    expect(again.body.data.id).toBe(res.body.data.id);
    await new Promise((r) => setTimeout(r, 200));
    expect(sink.dataCount()).toBe(data + 1);
    const shown = await api(app, t.token).get(`/messages/${res.body.data.id as number}`);
    expect(shown.body.data.status).toBe('failed');
  });

  it('answers what is recorded: a reply the sweep resolved while SMTP was still talking is not 201 and emits no message.sent', async () => {
    const lat = sent.get('lat')!;
    dataEnd = { delayMs: 2500 };
    let res: request.Response | undefined;
    const pending = reply(lat.threadId, { body: 'Slow server' }, 'lat-1').then((r) => (res = r));
    try {
      const row = await waitFor(
        () =>
          one<{ id: number } | undefined>(
            `SELECT id FROM messages WHERE thread_id = $1 AND kind = 'manual' AND status = 'sending'`,
            [lat.threadId],
          ),
        'the reply recorded sending',
      );
      // The request is still waiting for the final reply to DATA when the sweep finds the row stale
      // (its SMTP conversation is made to look older than STALE_SECONDS) and resolves it.
      await q(`UPDATE messages SET smtp_started_at = now() - make_interval(secs => $2) WHERE id = $1`, [
        row.id,
        STALE_SECONDS + 60,
      ]);
      await app.get(ManualReplySweeper).sweepOnce();
      expect(
        (await one<{ status: string }>(`SELECT status FROM messages WHERE id = $1`, [row.id])).status,
      ).toBe('failed');
      await pending;
    } finally {
      dataEnd = 'accept';
    }
    expect(res!.body.data.status).toBe('failed');
    expect(res!.status).toBe(202);
    expect(res!.body.data.error).toMatch(/^outcome unknown: /);
    await new Promise((r) => setTimeout(r, 200));
    const events = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'message.sent'
         AND (data -> 'message' ->> 'id')::bigint = $2`,
      [t.workspaceId, res!.body.data.id],
    );
    expect(events.n).toBe(0);
    const shown = await api(app, t.token).get(`/messages/${res!.body.data.id as number}`);
    expect(shown.body.data.status).toBe('failed');
  });

  it('a refusal before the message could be accepted sends nothing, gives the slot back (503), and may be retried with the same key', async () => {
    const unk = sent.get('unk')!;
    const before = await sentToday();
    const count = await one<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE thread_id = $1`, [
      unk.threadId,
    ]);
    dataEnd = { reply: 451 };
    const res = await reply(unk.threadId, { body: 'Try later' }, 'unk-2');
    dataEnd = 'accept';
    expect(res.status).toBe(503);
    expect(res.body.error.type).toBe('service_unavailable');
    expect(res.headers['retry-after']).toBe('60');
    expect(await sentToday()).toBe(before);
    expect(await one(`SELECT count(*)::int AS n FROM messages WHERE thread_id = $1`, [unk.threadId])).toEqual(
      count,
    );
    const retry = await reply(unk.threadId, { body: 'Try later' }, 'unk-2');
    expect(retry.status).toBe(201);
    expect(mailsTo('unk@example.com').filter((m) => m.parsed.text?.includes('Try later'))).toHaveLength(1);
  });

  it('a hard bounce at RCPT: 422 contact_id, the reply failed, the address suppressed bounced', async () => {
    const bob = sent.get('bob')!;
    refuse = 'bob@example.com';
    const res = await reply(bob.threadId, { body: 'Hello?' });
    refuse = null;
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ type: 'validation_failed', field: 'contact_id' });
    const row = await one<{ status: string; error: string }>(
      `SELECT status, error FROM messages WHERE thread_id = $1 AND kind = 'manual'`,
      [bob.threadId],
    );
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/^hard bounce: /);
    expect(
      await one('SELECT reason FROM suppressions WHERE workspace_id = $1 AND email = $2', [
        t.workspaceId,
        'bob@example.com',
      ]),
    ).toEqual({ reason: 'bounced' });
  });

  it('refuses a suppressed contact (422), an inactive inbox (409), invalid input (422), other scopes (403) and tenants (404)', async () => {
    const sue = sent.get('sue')!;
    expect((await api(app, t.token).post('/suppressions').send({ email: 'sue@example.com' })).status).toBe(
      201,
    );
    const suppressed = await reply(sue.threadId, { body: 'Hi' });
    expect(suppressed.status).toBe(422);
    expect(suppressed.body.error).toMatchObject({ type: 'validation_failed', field: 'contact_id' });

    const cap = sent.get('cap')!;
    await q(`UPDATE inboxes SET status = 'paused' WHERE id = $1`, [c.inboxIds[0]]);
    const paused = await reply(cap.threadId, { body: 'Hi' });
    await q(`UPDATE inboxes SET status = 'active' WHERE id = $1`, [c.inboxIds[0]]);
    expect(paused.status).toBe(409);
    expect(paused.body.error.type).toBe('conflict');
    expect(mailsTo('sue@example.com').filter((m) => m.parsed.text?.trim() === 'Hi')).toHaveLength(0);
    expect(mailsTo('cap@example.com').filter((m) => m.parsed.text?.trim() === 'Hi')).toHaveLength(0);

    for (const [body, field] of [
      [{}, 'body'],
      [{ body: '   ' }, 'body'],
      [{ body: 'x', subject: '' }, 'subject'],
      [{ body: 'x', extra: 1 }, 'extra'],
    ] as const) {
      const bad = await reply(cap.threadId, body);
      expect(bad.status).toBe(422);
      expect(bad.body.error.field).toBe(field);
    }
    expect((await reply(999999, { body: 'x' })).status).toBe(404);
    const other = await createTenant(app);
    expect(
      (await api(app, other.token).post(`/threads/${cap.threadId}/messages`).send({ body: 'x' })).status,
    ).toBe(404);
    const readOnly = await workspaceKey(app, t.workspaceId, ['threads:read']);
    expect(
      (await api(app, readOnly).post(`/threads/${cap.threadId}/messages`).send({ body: 'x' })).status,
    ).toBe(403);
  });

  it("counts against the inbox's daily limit atomically: concurrent replies never pass it (409 beyond)", async () => {
    const cap = sent.get('cap')!;
    const used = await sentToday();
    await q(`UPDATE inboxes SET daily_limit = $2 WHERE id = $1`, [c.inboxIds[0], used + 2]);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => reply(cap.threadId, { body: `Parallel ${i}` })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 409, 409, 409, 409]);
    expect(results.find((r) => r.status === 409)!.body.error.message).toMatch(/daily limit/);
    expect(await sentToday()).toBe(used + 2);
    expect(mailsTo('cap@example.com').filter((m) => m.parsed.text?.startsWith('Parallel'))).toHaveLength(2);
    await q(`UPDATE inboxes SET daily_limit = 1000 WHERE id = $1`, [c.inboxIds[0]]);
  });
});
