/**
 * 64-bit identifiers end to end: with every identity sequence moved past 2^32, a contact is created,
 * enrolled through the API, sent its step by the real engine to a real SMTP server, and every id on
 * the way (contact, campaign, sequence, enrollment, thread, message) is a JSON integer that works in
 * paths and filters. Ids past 2^53 - 1 (the exact JSON integer range) are a 404 or a 422, never a 500.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import { api, bootApp, createTenant } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const TABLES = [
  'contacts',
  'enrollments',
  'threads',
  'messages',
  'campaigns',
  'sequences',
  'suppressions',
  'webhook_endpoints',
  'webhook_deliveries',
  'imports',
  'api_keys',
  'daily_metrics',
];
const START = 5_000_000_000;

describe('64-bit ids', () => {
  // Its own boot, not useApp(): the ids are reset while the app is still up, before it closes.
  let app: NestExpressApplication;
  let db: DataSource;
  let sink: SmtpSink;
  const restart: Array<[string, number]> = [];

  beforeAll(async () => {
    process.env.SEND_TICK_MS = '50';
    process.env.SEND_MIN_GAP_SECONDS = '0';
    resetConfig();
    sink = await startSmtpSink();
    app = await bootApp();
    db = app.get(DataSource);
    for (const table of TABLES) {
      const [{ next }] = (await db.query(`SELECT coalesce(max(id), 0) + 1 AS next FROM ${table}`)) as Array<{
        next: number;
      }>;
      restart.push([table, next]);
      await db.query(`ALTER TABLE ${table} ALTER COLUMN id RESTART WITH ${START}`);
    }
  });
  afterAll(async () => {
    // The rest of the suite runs on small ids again (the rows made here keep theirs).
    for (const [table, next] of restart)
      await db.query(`ALTER TABLE ${table} ALTER COLUMN id RESTART WITH ${next}`);
    await app?.close();
    await sink?.close();
    delete process.env.SEND_TICK_MS;
    delete process.env.SEND_MIN_GAP_SECONDS;
    resetConfig();
  });

  it('a contact past 2^32 is created, enrolled, sent to, threaded and listed with integer ids', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign((sql, params) => db.query(sql, params), {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: [{ subject: 'Big {{ first_name }}', body: 'Hello {{ first_name }}' }],
    });
    expect(c.campaignId).toBeGreaterThanOrEqual(START);

    const created = await api(app, t.token)
      .post('/contacts')
      .send({ email: 'big@example.com', first_name: 'Bea' });
    expect(created.status).toBe(200);
    const contactId = (created.body as { data: { id: unknown } }).data.id;
    expect(typeof contactId).toBe('number');
    expect(contactId).toBeGreaterThanOrEqual(START);
    expect(created.text).toContain(`"id":${String(contactId)}`);

    const enrolled = await api(app, t.token)
      .post(`/campaigns/${c.campaignId}/enrollments`)
      .send({ contact_id: contactId });
    expect(enrolled.status).toBe(201);
    const enrollment = (enrolled.body as { data: { id: number; contact_id: number; campaign_id: number } })
      .data;
    expect(enrollment.id).toBeGreaterThanOrEqual(START);
    expect(enrollment).toMatchObject({ contact_id: contactId, campaign_id: c.campaignId });

    await waitFor(async () => sink.received.some((m) => m.to.includes('big@example.com')), 'the step sent');
    await waitFor(async () => {
      const res = await api(app, t.token).get(`/enrollments/${enrollment.id}`);
      return (res.body as { data: { status: string } }).data.status === 'completed';
    }, 'the enrollment completed');

    const threads = await api(app, t.token).get(`/threads?contact_id=${String(contactId)}`);
    expect(threads.status).toBe(200);
    const [thread] = (
      threads.body as { data: Array<{ id: number; enrollment_id: number; campaign_id: number }> }
    ).data;
    expect(thread).toMatchObject({ enrollment_id: enrollment.id, campaign_id: c.campaignId });
    expect(thread.id).toBeGreaterThanOrEqual(START);
    const messages = await api(app, t.token).get(`/threads/${thread.id}/messages`);
    const [message] = (messages.body as { data: Array<{ id: number; thread_id: number; subject: string }> })
      .data;
    expect(message).toMatchObject({ thread_id: thread.id, subject: 'Big Bea' });
    expect(message.id).toBeGreaterThanOrEqual(START);
    expect((await api(app, t.token).get(`/messages/${message.id}`)).status).toBe(200);

    const byCampaign = await api(app, t.token).get(`/enrollments?campaign_id=${c.campaignId}`);
    expect((byCampaign.body as { data: Array<{ id: number }> }).data.map((e) => e.id)).toEqual([
      enrollment.id,
    ]);
    // Cursors carry 64-bit ids too.
    const page = await api(app, t.token).get('/contacts?per_page=1');
    expect(page.status).toBe(200);
  });

  it('ids beyond the exact JSON range: 404 in a path, 422 in a filter or a body, never a 500', async () => {
    const t = await createTenant(app);
    for (const id of ['9007199254740991', '9007199254740992', '99999999999999999999']) {
      expect((await api(app, t.token).get(`/contacts/${id}`)).status).toBe(404);
      expect((await api(app, t.token).get(`/campaigns/${id}`)).status).toBe(404);
    }
    const filter = await api(app, t.token).get('/enrollments?campaign_id=9007199254740992');
    expect(filter.status).toBe(422);
    expect(JSON.stringify(filter.body)).toContain('campaign_id');
    const ok = await api(app, t.token).get('/enrollments?campaign_id=9007199254740991');
    expect(ok.status).toBe(200);
    const body = await api(app, t.token)
      .post('/campaigns/9007199254740991/enrollments')
      .send({ contact_id: 9007199254740992 });
    expect([404, 422]).toContain(body.status);
  });
});
