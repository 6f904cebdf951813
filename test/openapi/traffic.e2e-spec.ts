/**
 * What is documented is what the service does: every exchange of this run (this file's journey and,
 * in a whole run, every in-process request of every other e2e file, recorded by bootApp) is checked
 * against the committed openapi.json — route, status, answer body, service headers, and for every
 * accepted request its parameters and body (test/helpers/openapi-traffic.ts). Runs last
 * (test/sequencer.mjs), and the check waits until every other file of the run has finished (the other
 * worker may still be running one): test/helpers/run-progress.ts. Zero mismatches is the only pass.
 */
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import { connectInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { api, createTenant, type TestTenant, useApp, app } from '../helpers/app.js';
import { validateTraffic, type Exchange } from '../helpers/openapi-traffic.js';
import { otherFilesDone, runTraffic } from '../helpers/run-progress.js';

const doc = JSON.parse(readFileSync('openapi.json', 'utf8')) as Record<string, unknown>;
const SCHEDULE = {
  timezone: 'UTC',
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start_time: '09:00',
  end_time: '17:00',
};

describe('API document against real traffic', () => {
  useApp({ env: { WEBHOOK_ALLOWED_TEST_HOSTS: '127.0.0.1' } });
  let t: TestTenant;

  beforeAll(async () => {
    t = await createTenant(app, { maxWorkspaces: 5 });
  });
  afterAll(async () => {
    delete process.env.WEBHOOK_ALLOWED_TEST_HOSTS;
    resetConfig();
  });

  it('a journey through every tag answers as documented', async () => {
    const a = api(app, t.token);
    const p = api(app, t.provisioningToken);
    const ok = async (
      res: Promise<{ status: number; body: { data?: { id?: number | string } } }>,
      status = 200,
    ) => {
      const r = await res;
      if (r.status !== status) throw new Error(`answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body.data as Record<string, unknown> & { id: number };
    };
    await ok(a.get('/me'));
    // Provisioning.
    await ok(p.get('/provisioning/workspaces?per_page=2'));
    const ws = await ok(p.post('/provisioning/workspaces').send({ name: 'Client A' }), 201);
    const wsId = ((ws as unknown as { workspace?: { id: string } }).workspace?.id ?? ws.id) as string;
    await ok(p.get(`/provisioning/workspaces/${wsId}`));
    // Contacts and suppressions.
    const contact = await ok(
      a
        .post('/contacts')
        .set('Idempotency-Key', 'journey-contact-1')
        .send({ email: 'Ada@Example.com', first_name: 'Ada', custom_fields: { plan: 'pro' } }),
    );
    await ok(
      a
        .post('/contacts')
        .set('Idempotency-Key', 'journey-contact-1')
        .send({ email: 'Ada@Example.com', first_name: 'Ada', custom_fields: { plan: 'pro' } }),
    );
    await ok(a.get(`/contacts/${contact.id}`));
    await ok(a.patch(`/contacts/${contact.id}`).send({ last_name: 'Lovelace', stage: 'contacted' }));
    await ok(a.get('/contacts?status=contacted&sendable=true&created_after=2000-01-01&per_page=1'));
    await ok(a.get(`/contacts?email=ada@example.com&updated_after=2000-01-01T00:00:00Z`));
    await ok(a.post('/suppressions').send({ domain: 'blocked.test' }), 201);
    await ok(a.get('/suppressions?reason=manual'));
    // Sequences, campaigns, enrollments.
    const seq = await ok(
      a.post('/sequences').send({
        name: 'Intro',
        steps: [
          { position: 1, delay_minutes: 0, subject: 'Hi {{ first_name }}', body: 'Hello {{ first_name }}' },
          { position: 2, delay_minutes: 1440, subject: null, body: 'Following up' },
        ],
      }),
      201,
    );
    await ok(a.get(`/sequences/${seq.id}`));
    await ok(a.patch(`/sequences/${seq.id}`).send({ name: 'Intro v2' }));
    await ok(a.post(`/sequences/${seq.id}/publish`));
    await ok(a.get('/sequences'));
    const { inbox } = await connectInbox(app.get(DataSource), {
      workspaceId: t.workspaceId,
      email: 'sam@acme.test',
      smtp: { host: '127.0.0.1', port: 2525, secure: false, user: null, password: null },
    });
    await ok(a.get('/inboxes'));
    await ok(a.get(`/inboxes/${inbox.id}`));
    const campaign = await ok(
      a
        .post('/campaigns')
        .send({ name: 'Q4', sequence_id: seq.id, inbox_ids: [inbox.id], schedule: SCHEDULE }),
      201,
    );
    await ok(a.get(`/campaigns/${campaign.id}`));
    await ok(a.patch(`/campaigns/${campaign.id}`).send({ daily_limit: 40 }));
    await ok(a.get('/campaigns'));
    await ok(a.patch(`/campaigns/${campaign.id}`).send({ status: 'active' }));
    const enrollment = await ok(
      a.post(`/campaigns/${campaign.id}/enrollments`).send({ contact_id: contact.id }),
      201,
    );
    await ok(a.get(`/enrollments?campaign_id=${campaign.id}&status=active,paused`));
    await ok(a.get(`/enrollments/${enrollment.id}`));
    await ok(a.post(`/enrollments/${enrollment.id}/pause`));
    await ok(a.post(`/enrollments/${enrollment.id}/resume`));
    await ok(a.post(`/enrollments/${enrollment.id}/stop`).send({ reason: 'Asked to stop' }));
    // Threads, analytics, imports, webhooks.
    await ok(a.get(`/threads?contact_id=${contact.id}`));
    await ok(a.get('/analytics/daily?from=2026-01-01&to=2026-12-31'));
    const imp = await ok(
      a.post('/contacts/import').send({ contacts: [{ email: 'grace@example.com', first_name: 'Grace' }] }),
      202,
    );
    await ok(a.get(`/imports/${imp.id}`));
    await ok(a.get('/imports'));
    const endpoint = await ok(
      a.post('/webhook-endpoints').send({ url: 'http://127.0.0.1:9/outreach', events: ['contact'] }),
      201,
    );
    await ok(a.get('/webhook-endpoints'));
    await ok(a.get(`/webhook-endpoints/${endpoint.id}`));
    await ok(a.patch(`/webhook-endpoints/${endpoint.id}`).send({ description: 'CRM sync' }));
    await ok(a.get(`/webhook-endpoints/${endpoint.id}/deliveries`));
    await ok(a.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`));
    await ok(a.post(`/webhook-endpoints/${endpoint.id}/test`));
    // Errors answer as documented too.
    expect((await a.get('/contacts/999999999')).status).toBe(404);
    expect((await a.get('/contacts?per_page=500')).status).toBe(422);
    expect((await a.get('/contacts?cursor=not-a-cursor')).status).toBe(422);
    expect(
      (await a.post('/contacts').send({ email: 'x@example.com', first_name: 'X', extra: 1 })).status,
    ).toBe(422);
    // A keyed refusal carries the key's RateLimit headers too: wrong tier, and a body over the limit.
    const wrongTier = await p.get('/contacts');
    expect(wrongTier.status).toBe(403);
    expect(wrongTier.headers.ratelimit).toMatch(/^"per-key";r=\d+;t=\d+$/);
    const tooLarge = await a
      .post('/contacts')
      .set('Content-Type', 'application/json')
      .send(`{"email":"${'a'.repeat(2 * 1024 * 1024)}@example.com"}`);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers['ratelimit-policy']).toMatch(/^"per-key";q=\d+;w=\d+$/);
    expect((await api(app).get('/contacts')).status).toBe(401);
    expect((await a.delete(`/webhook-endpoints/${endpoint.id}`)).status).toBe(204);
  });

  it(
    'every exchange of the run matches the committed document',
    async () => {
      await otherFilesDone(expect.getState().testPath!);
      const traffic: Exchange[] = runTraffic();
      expect(traffic.length).toBeGreaterThan(40);
      const mismatches = validateTraffic(traffic, doc);
      expect(mismatches).toEqual([]);
    },
    30 * 60_000,
  ); // the wait lasts as long as the other worker's last file
});
