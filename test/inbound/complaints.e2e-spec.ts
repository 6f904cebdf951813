/**
 * Spam complaints (RFC 5965 ARF feedback reports) end to end, over a real Dovecot IMAP server and
 * `POST /inbound/{inbox_id}`, with realistic reports from test/fixtures/arf: a matched report
 * suppresses the address `complained`, stops the contact's active and paused enrollments
 * `complained`, counts `complained` and fires `email.complained`, delivered to a real receiver with
 * both signatures; an unmatched report is ignored without a 500 and without a suppression.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { api, createTenant, useApp, app, q, one, FAST_SENDING, enrollment } from '../helpers/app.js';
import type { TestTenant } from '../helpers/app.js';
import { startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedEnrollment, sendFirstSteps, seedInboundCampaign } from '../helpers/seed.js';
import type { SeededCampaign } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const DOMAIN = 'complaints.test';

/** A fixture report about the message `messageId` sent to `to`. */
function report(name: string, messageId: string, to: string, subject = 'Hello'): string {
  return readFileSync(`test/fixtures/arf/${name}.eml`, 'utf8')
    .replaceAll('{{ORIGINAL_MESSAGE_ID}}', messageId)
    .replaceAll('{{ORIGINAL_TO}}', to)
    .replaceAll('{{ORIGINAL_FROM}}', `sender1@${DOMAIN}`)
    .replaceAll('{{ORIGINAL_SUBJECT}}', subject)
    .replaceAll('{{SENDER_DOMAIN}}', DOMAIN)
    .replaceAll('{{FEEDBACK_TO}}', `sender1@${DOMAIN}`)
    .replace(/\r?\n/g, '\r\n');
}

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

describe('complaints (ARF over real IMAP and the inbound route)', () => {
  useApp({
    env: {
      ...FAST_SENDING,
      IMAP_POLL_SECONDS: '1',
      WEBHOOK_ALLOWED_TEST_HOSTS: '127.0.0.1',
      WEBHOOK_POLL_MS: '50',
    },
  });
  let sink: SmtpSink;
  let dovecot: Dovecot;
  let receiver: Server;
  const hooks: Received[] = [];
  let t: TestTenant;
  let c: SeededCampaign;
  let other: SeededCampaign;
  const sent = new Map<string, { contactId: number; enrollmentId: number; messageId: string }>();
  const suppression = (email: string) =>
    one<{ reason: string } | undefined>(
      'SELECT reason FROM suppressions WHERE workspace_id = $1 AND email = $2',
      [t.workspaceId, email],
    );
  const complainedEvents = () =>
    q(`SELECT data FROM events WHERE workspace_id = $1 AND type = 'email.complained' ORDER BY created_at`, [
      t.workspaceId,
    ]) as Promise<Array<{ data: Record<string, unknown> }>>;
  const inbound = (raw: string) =>
    request(app.getHttpServer())
      .post(`/api/v1/inbound/${c.inboxIds[0]}`)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'message/rfc822')
      .send(raw);

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (x: Buffer) => chunks.push(x));
      req.on('end', () => {
        hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    dovecot = await startDovecot();
    sink = await startSmtpSink();
    t = await createTenant(app);
    c = await seedInboundCampaign(q, t.workspaceId, sink.port, dovecot, DOMAIN);
    other = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port });
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['yahoo', 'jmrp', 'headers'], sent);
  }, 60_000);

  afterAll(async () => {
    await sink.close();
    await dovecot.stop();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });

  it('a Yahoo CFL report over IMAP suppresses, stops every open enrollment, counts, and fires a signed email.complained', async () => {
    const created = await api(app, t.token)
      .post('/webhook-endpoints')
      .send({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, events: ['email'] });
    expect(created.status).toBe(201);
    const secret = created.body.data.secret as string;
    const y = sent.get('yahoo')!;
    // A second, paused enrollment of the same contact in another campaign stops too.
    const second = await seedEnrollment(
      q,
      t.workspaceId,
      other.campaignId,
      y.contactId,
      new Date(Date.now() + 86_400_000),
    );
    await q(`UPDATE enrollments SET status = 'paused' WHERE id = $1`, [second]);

    await dovecot.append(report('yahoo-cfl', y.messageId, 'yahoo@example.com', 'Hello yahoo'));
    await waitFor(
      async () => (await enrollment(y.enrollmentId)).status === 'stopped',
      'the complaint stops the enrollment',
    );

    expect(await enrollment(y.enrollmentId)).toEqual({ status: 'stopped', stop_reason: 'complained' });
    expect(await enrollment(second)).toEqual({ status: 'stopped', stop_reason: 'complained' });
    expect(await suppression('yahoo@example.com')).toEqual({ reason: 'complained' });
    const contact = await api(app, t.token).get(`/contacts/${y.contactId}`);
    expect(contact.body.data).toMatchObject({ sendable: false, suppression: { reason: 'complained' } });
    const recorded = await one<{ kind: string; direction: string; thread_id: number }>(
      `SELECT kind, direction, thread_id FROM messages WHERE enrollment_id = $1 AND direction = 'inbound'`,
      [y.enrollmentId],
    );
    expect(recorded).toMatchObject({ kind: 'complaint', direction: 'inbound' });
    const daily = await api(app, t.token).get(`/analytics/daily?campaign_id=${c.campaignId}`);
    expect(daily.body.data[0]).toMatchObject({
      campaign_id: c.campaignId,
      sent: 3,
      complained: 1,
      bounced: 0,
    });

    const expected = {
      contact_id: y.contactId,
      email: 'yahoo@example.com',
      feedback_type: 'abuse',
      enrollment_id: y.enrollmentId,
      campaign_id: c.campaignId,
    };
    expect((await complainedEvents()).map((e) => e.data)).toEqual([expected]);

    const hook = await waitFor(
      async () => hooks.find((h) => h.headers['x-service-event'] === 'email.complained'),
      'the email.complained delivery',
    );
    const envelope = JSON.parse(hook.body) as Record<string, unknown>;
    expect(envelope).toMatchObject({
      event: 'email.complained',
      workspace_id: t.workspaceId,
      data: expected,
    });
    expect(await octokitVerify(secret, hook.body, hook.headers['x-service-signature'] as string)).toBe(true);
    expect(
      new Webhook(secret).verify(hook.body, {
        'webhook-id': hook.headers['webhook-id'] as string,
        'webhook-timestamp': hook.headers['webhook-timestamp'] as string,
        'webhook-signature': hook.headers['webhook-signature'] as string,
      }),
    ).toEqual(envelope);
    // Tampered bytes do not verify.
    expect(
      await octokitVerify(
        secret,
        hook.body.replace('abuse', 'abusf'),
        hook.headers['x-service-signature'] as string,
      ),
    ).toBe(false);
  });

  it('a headers-only report over IMAP and a Microsoft JMRP report on the inbound route are matched the same way', async () => {
    const h = sent.get('headers')!;
    await dovecot.append(report('headers-only', h.messageId, 'headers@example.com'));
    await waitFor(
      async () => (await enrollment(h.enrollmentId)).status === 'stopped',
      'headers-only complaint',
    );
    expect(await enrollment(h.enrollmentId)).toEqual({ status: 'stopped', stop_reason: 'complained' });
    expect(await suppression('headers@example.com')).toEqual({ reason: 'complained' });

    const j = sent.get('jmrp')!;
    const res = await inbound(report('microsoft-jmrp', j.messageId, 'jmrp@example.com'));
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      status: 'recorded',
      kind: 'complaint',
      classification: 'complaint',
    });
    expect(await enrollment(j.enrollmentId)).toEqual({ status: 'stopped', stop_reason: 'complained' });
    expect(await suppression('jmrp@example.com')).toEqual({ reason: 'complained' });

    // A second report about the same recipient (another report id) is recorded, not counted again.
    const again = await inbound(
      report('microsoft-jmrp', j.messageId, 'jmrp@example.com').replace('<JMRP-2b9f6a3e', '<JMRP-second'),
    );
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ status: 'recorded', kind: 'complaint' });
    const events = await complainedEvents();
    expect(events.filter((e) => e.data.email === 'jmrp@example.com')).toHaveLength(1);
    expect(events.filter((e) => e.data.email === 'headers@example.com')).toHaveLength(1);
    const daily = await api(app, t.token).get(`/analytics/daily?campaign_id=${c.campaignId}`);
    expect(daily.body.data[0].complained).toBe(3);
  });

  it('an unmatched report is ignored on both paths: 202, no suppression, no event, the IMAP checkpoint moves on', async () => {
    const raw = report('unmatched', '<unused@x>', 'someone@yahoo.com');
    const res = await inbound(raw);
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({
      status: 'ignored',
      reason: 'complaint matches no sent message',
      read_as: 'complaint',
    });

    const before = await one<{ imap_last_uid: number }>('SELECT imap_last_uid FROM inboxes WHERE id = $1', [
      c.inboxIds[0],
    ]);
    await dovecot.append(raw);
    await waitFor(
      async () =>
        (
          await one<{ imap_last_uid: number }>('SELECT imap_last_uid FROM inboxes WHERE id = $1', [
            c.inboxIds[0],
          ])
        ).imap_last_uid > before.imap_last_uid,
      'the checkpoint past the unmatched report',
    );
    expect(await suppression('someone@yahoo.com')).toBeUndefined();
    expect(
      await one<{ n: number }>(`SELECT count(*)::int AS n FROM suppressions WHERE workspace_id = $1`, [
        t.workspaceId,
      ]),
    ).toEqual({ n: 3 });
    expect(await complainedEvents()).toHaveLength(3);
    expect(
      await one<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE message_id = $1`, [
        '<cfl.1730652000.77aa01@arf.mail.yahoo.com>',
      ]),
    ).toEqual({ n: 0 });
  });
});
