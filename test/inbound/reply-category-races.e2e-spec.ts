/**
 * A manual correction (`PATCH /threads/{id}` {category}) racing the categorise sweep on the same reply,
 * for many replies at once, on the real stack. Both lock the reply's thread row, then the reply's
 * message row; the sweep used to take the reply first and the thread last, so the two deadlocked
 * (PostgreSQL 40P01: a 500, or the sweep's transaction lost).
 *
 * Made to collide every time, not by chance: the test holds the workspace's suppression lock (what
 * adding to the list takes) while the sweep's code (`CategoryApplier.apply`, what the worker's loop
 * calls) applies a written opt-out to each reply; each of those transactions waits for the list with
 * its reply's rows locked. Then a correction per thread is sent and waits too, and the lock is let go:
 * each sweep transaction goes on to the thread, while its correction holds whatever it took.
 */
import type { QueryRunner } from 'typeorm';
import { CategoryApplier } from '../../src/modules/reply-categories/reply-categorizer.service.js';
import { all, api, app, createTenant, db, FAST_SENDING, q, useApp } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { postInThread } from '../helpers/reactions.js';
import { FIRST_STEP_NOW, seedCampaign, sendFirstSteps, type FirstSend } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const REPLIES = 10;

describe('reply categories: corrections racing the sweep on the same replies', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  // Room in the pool for every sweep transaction and every correction at once.
  useApp({ env: { ...FAST_SENDING, DB_POOL_SIZE: '40' } });
  afterAll(async () => {
    await sink.close();
  });

  /** Sessions of this database waiting for a lock, and those of them `holder` blocks. */
  const waiting = async (holder: QueryRunner): Promise<{ all: number; onHolder: number }> => {
    const [{ pid }] = (await holder.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
    const [row] = await all<{ all: number; on_holder: number }>(
      `SELECT count(*)::int AS all, count(*) FILTER (WHERE $1 = ANY(pg_blocking_pids(pid)))::int AS on_holder
       FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      [pid],
    );
    return { all: row.all, onHolder: row.on_holder };
  };

  it('every correction answers 200, every sweep transaction commits, every thread ends with the corrected category', async () => {
    const t = await createTenant(app);
    const ws = t.workspaceId;
    const c = await seedCampaign(q, { workspaceId: ws, smtpPort: sink.port, steps: FIRST_STEP_NOW });
    const names = Array.from({ length: REPLIES }, (_, i) => `corrace${i}`);
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, ws, c.campaignId, names, sent);

    const list = db.createQueryRunner();
    await list.connect();
    await list.startTransaction();
    let statuses: number[];
    let outcomes: string[];
    let replies: Array<{ id: string; thread_id: string; body: string | null }>;
    try {
      await list.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`suppressions:${ws}`]);
      for (const who of names) {
        await postInThread(c, sent.get(who)!, {
          from: `${who}@example.com`,
          body: 'Please remove me from your list.',
        });
      }
      replies = await all(
        `SELECT id, thread_id, body FROM messages WHERE workspace_id = $1 AND kind = 'reply' ORDER BY id`,
        [ws],
      );
      expect(replies).toHaveLength(REPLIES);
      // The sweep's transactions (the worker's own loop may hold some of the replies already: then the
      // call here waits behind it and finds the reply decided).
      const applier = app.get(CategoryApplier);
      const sweeps = replies.map((r) =>
        applier.apply({ id: Number(r.id), workspace_id: ws, body: r.body, config: null }, () =>
          Promise.resolve({ category: 'unsubscribe_request' as const, source: 'rules' as const }),
        ),
      );
      await waitFor(
        async () => (await waiting(list)).onHolder >= REPLIES,
        "every reply's categorisation waiting for the suppression list",
      );
      const corrections = replies.map((r) =>
        api(app, t.token)
          .patch(`/threads/${r.thread_id}`)
          .send({ category: 'interested' })
          .then((res) => res.status),
      );
      await waitFor(
        async () => (await waiting(list)).all >= 2 * REPLIES,
        'every correction waiting for its thread or its reply',
      );
      await list.commitTransaction();
      [statuses, outcomes] = await Promise.all([Promise.all(corrections), Promise.all(sweeps)]);
    } finally {
      if (list.isTransactionActive) await list.rollbackTransaction();
      await list.release();
    }

    expect(statuses).toEqual(replies.map(() => 200));
    // `failed`: the sweep's transaction was rolled back (the deadlock's other victim).
    expect(outcomes.filter((o) => o !== 'rules' && o !== 'already')).toEqual([]);
    for (const r of replies) {
      // Both committed: the sweep's decision, and the correction (the reply ends `manual`, below; the
      // sweep decides only a reply without a category, so the correction came second).
      const events = await all<{ data: { category: string; category_source: string } }>(
        `SELECT data FROM events WHERE workspace_id = $1 AND type = 'email.categorized'
           AND (data->>'message_id')::bigint = $2`,
        [ws, r.id],
      );
      expect(events.map((e) => `${e.data.category}/${e.data.category_source}`).sort()).toEqual([
        'interested/manual',
        'unsubscribe_request/rules',
      ]);
      const thread = await api(app, t.token).get(`/threads/${r.thread_id}`);
      expect(thread.body.data.category).toBe('interested');
    }
    const messages = await all<{ category: string; category_source: string }>(
      `SELECT category, category_source FROM messages WHERE workspace_id = $1 AND kind = 'reply'`,
      [ws],
    );
    expect(messages.every((m) => m.category === 'interested' && m.category_source === 'manual')).toBe(true);
    // The opt-outs the sweep applied stand: every address suppressed, no enrollment left running.
    const suppressed = await all<{ email: string }>(
      `SELECT email FROM suppressions WHERE workspace_id = $1 AND reason = 'unsubscribed' ORDER BY email`,
      [ws],
    );
    expect(suppressed.map((s) => s.email)).toEqual(names.map((n) => `${n}@example.com`).sort());
    const enrollments = await all<{ contact_id: string; status: string }>(
      'SELECT contact_id, status FROM enrollments WHERE workspace_id = $1',
      [ws],
    );
    expect(enrollments).toHaveLength(REPLIES);
    expect(enrollments.filter((e) => e.status === 'active' || e.status === 'paused')).toEqual([]);
    // `interested` counts once per reply now interested.
    const [daily] = await all<{ interested: number }>(
      `SELECT coalesce(sum(interested), 0)::int AS interested FROM daily_metrics WHERE campaign_id = $1`,
      [c.campaignId],
    );
    expect(daily.interested).toBe(REPLIES);
  }, 120_000);
});
