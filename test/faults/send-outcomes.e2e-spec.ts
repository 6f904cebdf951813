/**
 * At most once when SMTP misbehaves, against real SMTP servers (smtp-server) and the
 * real app with its worker timers:
 *
 * - a failure before the server could have accepted the message (connection refused, an explicit
 *   4xx to the end of DATA) drops the record and retries later; the message goes out once;
 * - a 5xx to the end of DATA is a hard bounce;
 * - a failure after the message was handed over (connection dropped, or the final reply too slow)
 *   is an unknown outcome: message `failed` with `error` "outcome unknown…", enrollment paused with
 *   that `stop_note`, never resent; on resume the enrollment moves on to the next step;
 * - what a crash leaves: a step recorded but never handed to SMTP is sent normally once the lease
 *   ends; a step whose SMTP conversation had begun is paused for review;
 * - a template that fails at send time pauses its enrollment with a note naming the step, once.
 *
 * The claim lease is short here (SEND_LEASE_SECONDS=6), which bounds one SMTP conversation to 2 s.
 */
import request from 'supertest';
import { freePort } from '../../src/config/embedded.js';
import { resetConfig } from '../../src/config/app-config.js';
import { createTenant, type TestTenant, useApp, app, q, one, FAST_SENDING } from '../helpers/app.js';
import { startSmtpSink, type DataEndAction, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

describe('sending: at most once when SMTP misbehaves', () => {
  useApp({ env: { ...FAST_SENDING, SEND_LEASE_SECONDS: '6' } });
  const sinks: SmtpSink[] = [];
  /** DATA bodies fully received by a sink, per recipient (whatever the sink answered). */
  const bodies = new Map<string, number>();
  /** The end-of-DATA answer per recipient's local part (before '@'), on every attempt. */
  const policy = new Map<string, (attempt: number) => DataEndAction>();
  let sink: SmtpSink;

  const enrollment = (id: number) =>
    one<{ status: string; stop_note: string | null; stop_reason: string | null; current_step: number }>(
      'SELECT status, stop_note, stop_reason, current_step, next_step_at FROM enrollments WHERE id = $1',
      [id],
    );
  const messagesOf = (id: number) =>
    q(
      `SELECT id, step_position, status, error FROM messages WHERE enrollment_id = $1 ORDER BY step_position`,
      [id],
    ) as Promise<Array<{ id: number; step_position: number; status: string; error: string | null }>>;
  const accepted = (email: string): number =>
    sinks.reduce((n, s) => n + s.received.filter((m) => m.to.includes(email)).length, 0);
  const ticks = (ms = 600) => new Promise((r) => setTimeout(r, ms));

  const dataEnd = (_n: number, to: string[]): DataEndAction => {
    const email = to[0] ?? '';
    const attempt = (bodies.get(email) ?? 0) + 1;
    bodies.set(email, attempt);
    return policy.get(email.split('@')[0])?.(attempt) ?? 'accept';
  };

  beforeAll(async () => {
    sink = await startSmtpSink({ dataEnd });
    sinks.push(sink);
  });
  afterAll(async () => {
    await Promise.all(sinks.map((s) => s.close()));
    delete process.env.SEND_LEASE_SECONDS;
    resetConfig();
  });

  /** A two-step campaign on `port` and one due enrollment of `email`. */
  const enrol = async (
    email: string,
    port = sink.port,
    steps?: Array<{ subject: string | null; body: string }>,
  ): Promise<{ t: TestTenant; enrollmentId: number; campaignId: number; contactId: number }> => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: port, steps });
    const contactId = await seedContact(q, t.workspaceId, email, { first_name: 'Ann' });
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
    return { t, enrollmentId, campaignId: c.campaignId, contactId };
  };

  const untilStatus = (id: number, status: string, timeoutMs = 20_000) =>
    waitFor(
      async () => {
        const e = await enrollment(id);
        return e.status === status ? e : null;
      },
      `enrollment ${id} ${status}`,
      timeoutMs,
    );

  /** Makes a deferred enrollment due now (as if the retry delay had passed) and lets ticks run. */
  const dueNow = (id: number) => q('UPDATE enrollments SET next_step_at = now() WHERE id = $1', [id]);

  it('(a) the connection dropped after the message was sent: unknown outcome, paused, never resent; resume moves on', async () => {
    policy.set('drop', (attempt) => (attempt === 1 ? 'drop' : 'accept'));
    const { t, enrollmentId } = await enrol('drop@example.com');
    const paused = await untilStatus(enrollmentId, 'paused');
    expect(paused.stop_note).toMatch(/^outcome unknown/);
    expect(paused.stop_note).toMatch(/step 1/);
    const [msg] = await messagesOf(enrollmentId);
    expect(msg).toMatchObject({ step_position: 1, status: 'failed' });
    expect(msg.error).toMatch(/^outcome unknown/);
    expect(paused.stop_note).toBe(msg.error);

    // Message `error` in the API view.
    const shown = await request(app.getHttpServer())
      .get(`/api/v1/messages/${msg.id}`)
      .set('Authorization', `Bearer ${t.token}`)
      .expect(200);
    expect(shown.body.data).toMatchObject({ status: 'failed', error: msg.error });

    // Past any retry delay: still paused, nothing sent again.
    await dueNow(enrollmentId);
    await ticks();
    expect((await enrollment(enrollmentId)).status).toBe('paused');
    expect(bodies.get('drop@example.com')).toBe(1);

    // Resume: step 1 counts as consumed; step 2 goes out, once.
    await request(app.getHttpServer())
      .post(`/api/v1/enrollments/${enrollmentId}/resume`)
      .set('Authorization', `Bearer ${t.token}`)
      .expect(200);
    await untilStatus(enrollmentId, 'completed');
    await ticks();
    expect(bodies.get('drop@example.com')).toBe(2);
    expect(accepted('drop@example.com')).toBe(1);
    expect((await messagesOf(enrollmentId)).map((m) => [m.step_position, m.status])).toEqual([
      [1, 'failed'],
      [2, 'sent'],
    ]);
  });

  it('(b) the final reply comes after the conversation deadline: unknown outcome, the server has it once', async () => {
    policy.set('slow', () => ({ delayMs: 4000 }));
    const { enrollmentId } = await enrol('slow@example.com');
    const paused = await untilStatus(enrollmentId, 'paused');
    expect(paused.stop_note).toMatch(/^outcome unknown/);
    const [msg] = await messagesOf(enrollmentId);
    expect(msg.status).toBe('failed');
    expect(msg.error).toMatch(/^outcome unknown/);
    // The server answers late and keeps the message.
    await waitFor(async () => accepted('slow@example.com') === 1, 'the slow server accepted it', 10_000);
    await dueNow(enrollmentId);
    await ticks();
    expect(bodies.get('slow@example.com')).toBe(1);
    expect(accepted('slow@example.com')).toBe(1);
    expect((await enrollment(enrollmentId)).status).toBe('paused');
  });

  it('(c) 451 to the end of DATA: not sent, the record dropped and retried later; delivered once', async () => {
    policy.set('later', (attempt) => (attempt === 1 ? { reply: 451 } : 'accept'));
    const { enrollmentId } = await enrol('later@example.com');
    await waitFor(async () => bodies.get('later@example.com') === 1, 'first attempt', 10_000);
    const deferred = await waitFor(async () => {
      const [e] = (await q(
        `SELECT status, next_step_at > now() + interval '200 seconds' AS later FROM enrollments WHERE id = $1`,
        [enrollmentId],
      )) as Array<{ status: string; later: boolean }>;
      return e.later ? e : null;
    }, 'enrollment deferred by the retry delay');
    expect(deferred.status).toBe('active');
    expect(await messagesOf(enrollmentId)).toEqual([]);
    await dueNow(enrollmentId);
    await waitFor(async () => (await messagesOf(enrollmentId)).length === 2, 'both steps sent');
    await untilStatus(enrollmentId, 'completed');
    await ticks();
    expect(bodies.get('later@example.com')).toBe(3); // refused once, then step 1 and step 2
    expect(accepted('later@example.com')).toBe(2);
    expect((await messagesOf(enrollmentId)).map((m) => [m.step_position, m.status, m.error])).toEqual([
      [1, 'sent', null],
      [2, 'sent', null],
    ]);
  });

  it('(d) 550 5.1.1 to the end of DATA: a hard bounce, not retried', async () => {
    policy.set('bounce', () => ({ reply: 550, text: '5.1.1 <bounce@example.com>: user unknown' }));
    const { t, enrollmentId } = await enrol('bounce@example.com');
    const stopped = await untilStatus(enrollmentId, 'stopped');
    expect(stopped.stop_reason).toBe('bounced');
    const s = await one<{ reason: string }>(
      'SELECT reason FROM suppressions WHERE workspace_id = $1 AND email = $2',
      [t.workspaceId, 'bounce@example.com'],
    );
    expect(s.reason).toBe('bounced');
    const [msg] = await messagesOf(enrollmentId);
    expect(msg.status).toBe('failed');
    expect(msg.error).toMatch(/550/);
    await dueNow(enrollmentId);
    await ticks();
    expect(bodies.get('bounce@example.com')).toBe(1);
  });

  it('(d2) a bare 550 to the end of DATA: refused for good but not the address (§18): failed, never resent, the contact stays sendable', async () => {
    policy.set('refused-data', () => ({ reply: 550 }));
    const { t, enrollmentId } = await enrol('refused-data@example.com');
    const failed = await waitFor(async () => {
      const [m] = await messagesOf(enrollmentId);
      return m?.status === 'failed' ? m : null;
    }, 'the step failed');
    expect(failed.error).toMatch(/^soft bounce \(\w+\): .*550/);
    // The enrollment goes on (a soft bounce does not stop it): step 2 is tried once, and refused the
    // same way; neither step is ever sent twice.
    await dueNow(enrollmentId);
    await waitFor(async () => (await messagesOf(enrollmentId)).length === 2, 'step 2 tried');
    await ticks();
    expect((await messagesOf(enrollmentId)).map((m) => [m.step_position, m.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
    ]);
    expect(bodies.get('refused-data@example.com')).toBe(2);
    const suppressed = await one<{ n: number }>(
      'SELECT count(*)::int AS n FROM suppressions WHERE workspace_id = $1 AND email = $2',
      [t.workspaceId, 'refused-data@example.com'],
    );
    expect(suppressed.n).toBe(0);
  });

  it('(e) connection refused: not sent, retried later; delivered once when the server is back', async () => {
    const port = await freePort();
    const { enrollmentId } = await enrol('refused@example.com', port);
    const deferred = await waitFor(async () => {
      const [e] = (await q(
        `SELECT e.status, e.next_step_at > now() + interval '200 seconds' AS later, i.last_error
           FROM enrollments e JOIN campaigns c ON c.id = e.campaign_id JOIN inboxes i ON i.id = c.inbox_ids[1]
           WHERE e.id = $1`,
        [enrollmentId],
      )) as Array<{ status: string; later: boolean; last_error: string | null }>;
      return e.later ? e : null;
    }, 'enrollment deferred after the refused connection');
    expect(deferred.status).toBe('active');
    expect(deferred.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);
    expect(await messagesOf(enrollmentId)).toEqual([]);
    sinks.push(await startSmtpSink({ dataEnd, port }));
    await dueNow(enrollmentId);
    await untilStatus(enrollmentId, 'completed');
    await ticks();
    expect(bodies.get('refused@example.com')).toBe(2);
    expect(accepted('refused@example.com')).toBe(2);
  });

  it('a crash: a step recorded but never handed to SMTP is sent normally once the lease ends', async () => {
    const { enrollmentId, contactId, t } = await enrol('recorded@example.com');
    // Hold it back while we write what a killed worker leaves: a `sending` row that never reached SMTP.
    await q(`UPDATE enrollments SET next_step_at = now() + interval '1 hour' WHERE id = $1`, [enrollmentId]);
    await ticks(200);
    const [ws] = (await q(
      `SELECT c.inbox_ids[1] AS inbox_id FROM campaigns c JOIN enrollments e ON e.campaign_id = c.id WHERE e.id = $1`,
      [enrollmentId],
    )) as Array<{ inbox_id: string }>;
    const [thread] = (await q(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count)
       SELECT $1, $2, $3, $4, campaign_id, 'Hello Ann', 0 FROM enrollments WHERE id = $4 RETURNING id`,
      [t.workspaceId, ws.inbox_id, contactId, enrollmentId],
    )) as Array<{ id: number }>;
    await q(
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address, subject, body,
         message_id, status, step_position)
       VALUES ($1, $2, $3, 'outbound', 'email', 'sender1@x.test', 'recorded@example.com', 'Hello Ann', 'Hi',
         '<recorded@x.test>', 'sending', 1)`,
      [t.workspaceId, thread.id, enrollmentId],
    );
    await q(`UPDATE enrollments SET inbox_id = $2, next_step_at = now() WHERE id = $1`, [
      enrollmentId,
      ws.inbox_id,
    ]);
    await untilStatus(enrollmentId, 'completed');
    await ticks();
    expect(accepted('recorded@example.com')).toBe(2);
    const rows = await messagesOf(enrollmentId);
    expect(rows.map((m) => [m.step_position, m.status])).toEqual([
      [1, 'sent'],
      [2, 'sent'],
    ]);
    const threads = await one<{ n: number }>(
      'SELECT count(*)::int AS n FROM threads WHERE enrollment_id = $1',
      [enrollmentId],
    );
    expect(threads.n).toBe(1);
  });

  it('a crash: a step whose SMTP conversation had begun is paused for review, never resent', async () => {
    const { enrollmentId, contactId, t } = await enrol('begun@example.com');
    await q(`UPDATE enrollments SET next_step_at = now() + interval '1 hour' WHERE id = $1`, [enrollmentId]);
    await ticks(200);
    const [ws] = (await q(
      `SELECT c.inbox_ids[1] AS inbox_id FROM campaigns c JOIN enrollments e ON e.campaign_id = c.id WHERE e.id = $1`,
      [enrollmentId],
    )) as Array<{ inbox_id: string }>;
    const [thread] = (await q(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count)
       SELECT $1, $2, $3, $4, campaign_id, 'Hello Ann', 0 FROM enrollments WHERE id = $4 RETURNING id`,
      [t.workspaceId, ws.inbox_id, contactId, enrollmentId],
    )) as Array<{ id: number }>;
    await q(
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address, subject, body,
         message_id, status, step_position, smtp_started_at)
       VALUES ($1, $2, $3, 'outbound', 'email', 'sender1@x.test', 'begun@example.com', 'Hello Ann', 'Hi',
         '<begun@x.test>', 'sending', 1, now() - interval '10 seconds')`,
      [t.workspaceId, thread.id, enrollmentId],
    );
    await q(`UPDATE enrollments SET inbox_id = $2, next_step_at = now() WHERE id = $1`, [
      enrollmentId,
      ws.inbox_id,
    ]);
    const paused = await untilStatus(enrollmentId, 'paused');
    expect(paused.stop_note).toMatch(/^outcome unknown/);
    const [msg] = await messagesOf(enrollmentId);
    expect(msg.status).toBe('failed');
    expect(msg.error).toBe(paused.stop_note);
    await dueNow(enrollmentId);
    await ticks();
    expect(accepted('begun@example.com')).toBe(0);
  });

  it('a template that fails at send time pauses its enrollment naming the step, once; others still send', async () => {
    // Valid at save time (it parses; 100-character sample fields stay small), too large when rendered
    // with this contact's 10,000-character custom field.
    const steps = [
      { subject: 'Hello {{ first_name }}', body: 'Hi {{ first_name }}.' },
      { subject: null, body: '{% for i in (1..300) %}{{ custom_fields.note }}{% endfor %}' },
    ];
    const t = await createTenant(app);
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port, steps });
    const big = await seedContact(q, t.workspaceId, 'big@example.com', {
      first_name: 'Big',
      custom_fields: { note: 'x'.repeat(10_000) },
    });
    const bigId = await seedEnrollment(q, t.workspaceId, c.campaignId, big);
    // Enough enrollments due together for the chunked record path (recordMany) as well.
    const smallIds: number[] = [];
    for (let i = 0; i < 12; i++) {
      const contact = await seedContact(q, t.workspaceId, `small${i}@example.com`, {
        first_name: 'Small',
        custom_fields: { note: 'y' },
      });
      smallIds.push(await seedEnrollment(q, t.workspaceId, c.campaignId, contact));
    }
    const paused = await untilStatus(bigId, 'paused');
    expect(paused.stop_note).toMatch(/^template error in step 2: /);
    expect(paused.current_step).toBe(1);
    for (const id of smallIds) await untilStatus(id, 'completed');
    const before = await one<{ updated_at: Date }>('SELECT updated_at FROM enrollments WHERE id = $1', [
      bigId,
    ]);
    await dueNow(bigId);
    await ticks();
    const after = await one<{ status: string; updated_at: Date }>(
      'SELECT status, updated_at FROM enrollments WHERE id = $1',
      [bigId],
    );
    expect(after.status).toBe('paused');
    expect(after.updated_at).toEqual(before.updated_at);
    expect(accepted('big@example.com')).toBe(1); // step 1 only
    expect((await messagesOf(bigId)).map((m) => [m.step_position, m.status])).toEqual([[1, 'sent']]);
    for (let i = 0; i < 12; i++) expect(accepted(`small${i}@example.com`)).toBe(2);
  });
  it('with pacing on (a reservation per send), a template failing at send time pauses the enrollment too', async () => {
    process.env.SEND_MIN_GAP_SECONDS = '1';
    resetConfig();
    try {
      const t = await createTenant(app);
      const c = await seedCampaign(q, {
        workspaceId: t.workspaceId,
        smtpPort: sink.port,
        steps: [{ subject: 'Hi', body: '{% for i in (1..300) %}{{ custom_fields.note }}{% endfor %}' }],
      });
      const contact = await seedContact(q, t.workspaceId, 'paced@example.com', {
        custom_fields: { note: 'x'.repeat(10_000) },
      });
      const id = await seedEnrollment(q, t.workspaceId, c.campaignId, contact);
      const paused = await untilStatus(id, 'paused');
      expect(paused.stop_note).toMatch(/^template error in step 1: /);
      expect(await messagesOf(id)).toEqual([]);
      // Nothing of the inbox's day was used up by the failed render.
      const inbox = await one<{ sent_today: number }>('SELECT sent_today FROM inboxes WHERE id = $1', [
        c.inboxIds[0],
      ]);
      expect(inbox.sent_today).toBe(0);
    } finally {
      process.env.SEND_MIN_GAP_SECONDS = '0';
      resetConfig();
    }
  });
});
