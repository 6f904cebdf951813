/**
 * The engine in separate worker processes (`node dist/main.js` with APP_ROLE=worker), as deployed:
 * a worker SIGKILLed between "recorded" and "finalised" never causes a second send after restart,
 * and two workers sending at once never pass the inbox, campaign or domain daily caps.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import type { TestTenant } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { killProcess, printed, spawnWorker } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

describe('sending with worker processes', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  const workers: ChildProcess[] = [];
  const sinks: SmtpSink[] = [];
  const q = (sql: string, params?: unknown[]): Promise<unknown> => db.query(sql, params);
  const one = async <T>(sql: string, params?: unknown[]): Promise<T> =>
    ((await db.query(sql, params)) as T[])[0];
  const previousRole = process.env.APP_ROLE;

  let createTenant: (a: NestExpressApplication) => Promise<TestTenant>;

  beforeAll(async () => {
    // This process only serves the API: every send below comes from the spawned workers. The role
    // is read when the modules are first imported, hence the dynamic import after setting it.
    process.env.APP_ROLE = 'api';
    resetConfig();
    const helpers = await import('../helpers/app.js');
    createTenant = (a) => helpers.createTenant(a);
    app = await helpers.bootApp();
    const { WorkerRunner } = await import('../../src/worker/worker.module.js');
    expect(() => app.get(WorkerRunner)).toThrow(); // no send loop in this process
    db = app.get(DataSource);
    // Same step as `npm run cli`: build dist/ when it is missing or older than src/.
    execFileSync(process.execPath, ['scripts/ensure-built.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }, 240_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => killProcess(w, 'SIGTERM')));
    await app.close();
    await Promise.all(sinks.map((s) => s.close()));
    if (previousRole === undefined) delete process.env.APP_ROLE;
    else process.env.APP_ROLE = previousRole;
    resetConfig();
  }, 60_000);

  it('a worker killed between "recorded" and "finalised" never sends the step again after restart', async () => {
    const sink = await startSmtpSink({ stallData: true });
    sinks.push(sink);
    const t = await createTenant(app);
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port });
    const contactId = await seedContact(q, t.workspaceId, 'killed@example.com', { first_name: 'Kim' });
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);

    const first = spawnWorker();
    workers.push(first);
    // The server has the whole message but holds its answer: the row is recorded, not finalised.
    await waitFor(async () => sink.dataCount() === 1, 'DATA received by the stalled server', 60_000);
    const recorded = await one<{ id: number; status: string }>(
      `SELECT id, status FROM messages WHERE enrollment_id = $1 AND step_position = 1`,
      [enrollmentId],
    );
    expect(recorded.status).toBe('sending');
    await killProcess(first, 'SIGKILL');
    expect(first.signalCode).toBe('SIGKILL');
    sink.releaseData(); // the server keeps what it got: the mail did go out, once

    // Restart after the claim lease ran out (moved forward here instead of waiting ten minutes).
    await q(`UPDATE enrollments SET next_step_at = now() WHERE id = $1`, [enrollmentId]);
    const second = spawnWorker();
    workers.push(second);
    const paused = await waitFor(
      async () => {
        const e = await one<{ status: string; stop_note: string | null; current_step: number }>(
          'SELECT status, stop_note, current_step FROM enrollments WHERE id = $1',
          [enrollmentId],
        );
        return e.status === 'paused' ? e : null;
      },
      'restarted worker pauses the enrollment for review',
      60_000,
    ).catch(async (err: Error) => {
      const state = await q('SELECT status, next_step_at, current_step FROM enrollments WHERE id = $1', [
        enrollmentId,
      ]);
      const msgs = await q('SELECT id, status, step_position FROM messages WHERE enrollment_id = $1', [
        enrollmentId,
      ]);
      throw new Error(
        `${err.message}\nenrollment ${JSON.stringify(state)} messages ${JSON.stringify(msgs)}\n` +
          `restarted worker (exit ${second.exitCode}) printed:\n${printed(second)}`,
      );
    });
    expect(paused.stop_note).toMatch(/^outcome unknown: step 1 was interrupted/);
    expect(paused.current_step).toBe(0);
    expect(
      (await one<{ status: string }>('SELECT status FROM messages WHERE id = $1', [recorded.id])).status,
    ).toBe('failed');
    await new Promise((r) => setTimeout(r, 500)); // ten ticks more
    expect(sink.dataCount()).toBe(1);
    expect(sink.received.filter((m) => m.to.includes('killed@example.com'))).toHaveLength(1);
    const rows = await one<{ n: number }>(
      'SELECT count(*)::int AS n FROM messages WHERE enrollment_id = $1',
      [enrollmentId],
    );
    expect(rows.n).toBe(1);
    await killProcess(second, 'SIGTERM');
  }, 120_000);

  it('two workers sending at once never pass the inbox, campaign or domain daily caps', async () => {
    const sink = await startSmtpSink();
    sinks.push(sink);
    const seedMany = async (
      workspaceId: string,
      campaignId: number,
      prefix: string,
      n: number,
    ): Promise<void> => {
      await q(
        `WITH c AS (
           INSERT INTO contacts (workspace_id, email) SELECT $1, $2 || g || '@example.com' FROM generate_series(1, $3) g RETURNING id
         )
         INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
         SELECT $1, $4, c.id, 'active', 0, now() - interval '1 second' FROM c`,
        [workspaceId, prefix, n, campaignId],
      );
    };
    const oneStep = [{ subject: 'Hi {{ email }}', body: 'One step' }];
    // A: two inboxes of 3 a day each → 6.
    const a = await createTenant(app);
    const ca = await seedCampaign(q, {
      workspaceId: a.workspaceId,
      smtpPort: sink.port,
      inboxes: 2,
      inboxDailyLimit: 3,
      domain: 'caps-a.test',
      steps: oneStep,
    });
    await seedMany(a.workspaceId, ca.campaignId, 'a', 60);
    // B: the campaign's own daily limit of 4.
    const b = await createTenant(app);
    const cb = await seedCampaign(q, {
      workspaceId: b.workspaceId,
      smtpPort: sink.port,
      inboxes: 2,
      campaignDailyLimit: 4,
      domain: 'caps-b.test',
      steps: oneStep,
    });
    await seedMany(b.workspaceId, cb.campaignId, 'b', 60);
    // C: the workspace's domain_daily_send_limit of 5 over two inboxes of one domain.
    const c = await createTenant(app);
    await q(
      `UPDATE workspaces SET config = config || '{"domain_daily_send_limit": 5}'::jsonb WHERE id = $1`,
      [c.workspaceId],
    );
    const cc = await seedCampaign(q, {
      workspaceId: c.workspaceId,
      smtpPort: sink.port,
      inboxes: 2,
      domain: 'caps-c.test',
      steps: oneStep,
    });
    await seedMany(c.workspaceId, cc.campaignId, 'c', 60);

    workers.push(spawnWorker(), spawnWorker());
    const tenants = [a.workspaceId, b.workspaceId, c.workspaceId];
    // Done when every enrollment has either completed or been deferred to the next UTC day.
    await waitFor(
      async () => {
        const open = await one<{ n: number }>(
          `SELECT count(*)::int AS n FROM enrollments WHERE workspace_id = ANY($1::uuid[])
           AND NOT (status = 'completed' OR next_step_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 day')`,
          [tenants],
        );
        return open.n === 0;
      },
      'every enrollment sent or deferred to tomorrow',
      90_000,
    );
    await new Promise((r) => setTimeout(r, 500));

    const byDomain = (d: string) => sink.received.filter((m) => m.from.endsWith(`@${d}`));
    expect(byDomain('caps-a.test')).toHaveLength(6);
    expect(byDomain('caps-b.test')).toHaveLength(4);
    expect(byDomain('caps-c.test')).toHaveLength(5);
    const perInbox = (await q(
      `SELECT i.id, i.sent_today, (SELECT count(*)::int FROM messages m WHERE m.from_address = i.email AND m.status = 'sent') AS sent
       FROM inboxes i WHERE i.id = ANY($1::uuid[]) ORDER BY i.email`,
      [ca.inboxIds],
    )) as Array<{ sent_today: number; sent: number }>;
    expect(perInbox.map((r) => [r.sent_today, r.sent])).toEqual([
      [3, 3],
      [3, 3],
    ]);
    for (const [ws, n] of [
      [a.workspaceId, 6],
      [b.workspaceId, 4],
      [c.workspaceId, 5],
    ] as const) {
      const m = await one<{ sent: number; completed: number }>(
        'SELECT sum(sent)::int AS sent, sum(completed)::int AS completed FROM daily_metrics WHERE workspace_id = $1',
        [ws],
      );
      expect(m).toEqual({ sent: n, completed: n });
      const done = await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM enrollments WHERE workspace_id = $1 AND status = 'completed'`,
        [ws],
      );
      expect(done.n).toBe(n);
    }
    // Both workers were alive throughout.
    expect(workers.slice(-2).every((w) => w.exitCode === null && w.signalCode === null)).toBe(true);
  }, 180_000);
});
