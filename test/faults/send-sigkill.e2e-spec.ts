/**
 * Fault: SIGKILL of a worker process in the middle of sending, with two workers running.
 *
 * Real processes: two workers (`node dist/main.js`, APP_ROLE=worker, 6 s claim lease via
 * SEND_LEASE_SECONDS) sending a two-step sequence to 200 enrollments through a real SMTP server
 * (`smtp-server`, test/helpers/faults-smtp.ts) that records every message it receives. Once mail flows, the worker holding
 * SMTP connections to the server (read from /proc) is killed with SIGKILL; the other one carries on
 * and takes over the dead worker's claims when their lease ends. Proves (docs/sending.md and docs/trust/README.md "A crash
 * puts little in doubt"): 0 duplicates (no enrollment's step received twice), 0 enrollments lost
 * (each ends completed with every step received once, or paused "in doubt" for the one step whose
 * SMTP conversation had begun), and at most 32 steps in doubt.
 */
import { createFaultTenant } from '../helpers/faults-http.js';
import { connectionsTo, sleep, startService, useProcesses, db } from '../helpers/processes.js';
import { startRecordingServer, type RecordingServer } from '../helpers/faults-smtp.js';
import { seedCampaign } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const ENROLLMENTS = 200;
const STEPS = 2;
/**
 * The claim lease. The brief's 3 s works, but the sending engine derives its per-conversation SMTP
 * deadline from it (lease / 3): on a loaded 2-core machine 1 s conversations time out and turn into
 * genuine "outcome unknown" or "not sent" results that have nothing to do with the kill. 6 s keeps
 * recovery within seconds with a 2 s deadline.
 */
const LEASE_SECONDS = 6;
/** docs/trust/README.md: a killed worker leaves in doubt at most its SMTP concurrency, at most 32. */
const MAX_IN_DOUBT = 32;
/** What a pause "for review after an unknown SMTP outcome" says (crash or dropped connection). */
const IN_DOUBT_NOTE = /in doubt|outcome unknown|interrupted/i;

describe('fault: SIGKILL of a worker mid-send (two workers)', () => {
  let sink: RecordingServer | undefined;
  useProcesses({ after: () => sink?.close() });

  it('0 duplicates, 0 enrollments lost, at most 32 steps in doubt', async () => {
    sink = await startRecordingServer();
    const smtp = sink;
    const t = await createFaultTenant(db);
    await db.query(
      `UPDATE workspaces SET config = config || '{"domain_daily_send_limit": 100000}'::jsonb WHERE id = $1`,
      [t.workspaceId],
    );
    const c = await seedCampaign((sql, params) => db.query(sql, params), {
      workspaceId: t.workspaceId,
      smtpPort: smtp.port,
      inboxes: 4,
      steps: [
        { subject: 'Hello {{ email }}', body: 'step-1 for {{ email }}' },
        { subject: null, body: 'step-2 for {{ email }}' },
      ],
    });
    const env = {
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:send-kill`,
      SEND_LEASE_SECONDS: String(LEASE_SECONDS),
      SEND_TICK_MS: '100',
      SEND_MIN_GAP_SECONDS: '0',
    };
    const workers = await Promise.all([
      startService({ role: 'worker', env }),
      startService({ role: 'worker', env }),
    ]);
    // Both workers are up before anything is due.
    await db.query(
      `WITH c AS (
         INSERT INTO contacts (workspace_id, email)
         SELECT $1, 'kill' || g || '@example.com' FROM generate_series(1, $2) g RETURNING id
       )
       INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
       SELECT $1, $3, c.id, 'active', 0, now() - interval '1 second' FROM c`,
      [t.workspaceId, ENROLLMENTS, c.campaignId],
    );

    // Kill, mid-send, a worker that is talking to the SMTP server.
    const victim = await waitFor(
      async () => {
        if (smtp.received.length < 60) return undefined;
        const busy = workers
          .map((w) => ({ w, n: connectionsTo(w.pid, smtp.port) }))
          .filter((x) => x.n > 0)
          .sort((a, b) => b.n - a.n);
        return busy[0]?.w;
      },
      'a worker holding SMTP connections while mail flows',
      60_000,
    );
    await victim.kill('SIGKILL');
    const atKill = smtp.received.length;
    expect(victim.child.signalCode).toBe('SIGKILL');
    expect(atKill).toBeLessThan(ENROLLMENTS * STEPS);
    const survivor = workers.find((w) => w !== victim)!;

    const statuses = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        (
          (await db.query(
            `SELECT CASE WHEN status = 'active' AND next_step_at > now() + make_interval(secs => $2)
                         THEN 'active, due later' ELSE status END AS status, count(*)::int AS n
             FROM enrollments WHERE campaign_id = $1 GROUP BY 1`,
            [c.campaignId, LEASE_SECONDS + 1],
          )) as Array<{ status: string; n: number }>
        ).map((r) => [r.status, r.n]),
      );
    const sendingRows = async (): Promise<number> =>
      (
        (await db.query(
          `SELECT count(*)::int AS n FROM messages WHERE workspace_id = $1 AND status = 'sending'`,
          [t.workspaceId],
        )) as Array<{ n: number }>
      )[0].n;
    const settle = (what: string): Promise<unknown> =>
      waitFor(async () => !(await statuses()).active && (await sendingRows()) === 0, what, 60_000).catch(
        async (err: Error) => {
          throw new Error(
            `${err.message}: enrollments ${JSON.stringify(await statuses())}, ${await sendingRows()} ` +
              `messages still 'sending', ${smtp.received.length} received (${atKill} at the kill); survivor ` +
              `alive: ${survivor.alive()}\n${survivor.problems()}`,
          );
        },
      );
    // The survivor sends what the dead worker had not begun (once its lease ends) and pauses what
    // it had begun. A send refused before the server could have the message (possible on a loaded
    // machine: connect or pool deadline) is retried after 300 s, stood in for by moving it to now.
    await settle('every enrollment completed, paused or deferred');
    await db.query(
      `UPDATE enrollments SET next_step_at = now() WHERE campaign_id = $1 AND status = 'active'`,
      [c.campaignId],
    );
    await settle('every enrollment completed or paused');
    await waitFor(async () => !(await statuses())['active, due later'], 'no retry left', 60_000);
    await sleep(1000); // a few more ticks: nothing else may go out

    // 0 duplicates.
    const received = new Map<string, number>();
    for (const m of smtp.received) {
      const step = /step-(\d) for/.exec(m.raw.replace(/=\r\n/g, ''))?.[1];
      const key = `${m.to.join(',')}|${step}`;
      received.set(key, (received.get(key) ?? 0) + 1);
    }
    const duplicates = [...received].filter(([, n]) => n > 1);
    expect(duplicates).toEqual([]);

    // 0 lost: completed with every step received once, or paused in doubt for exactly one step.
    const enrollments = (await db.query(
      `SELECT e.id, e.status, e.current_step, e.stop_note, ct.email FROM enrollments e
       JOIN contacts ct ON ct.id = e.contact_id WHERE e.campaign_id = $1`,
      [c.campaignId],
    )) as Array<{
      id: number;
      status: string;
      current_step: number;
      stop_note: string | null;
      email: string;
    }>;
    expect(enrollments).toHaveLength(ENROLLMENTS);
    const problems: string[] = [];
    let inDoubt = 0;
    for (const e of enrollments) {
      const got = (step: number): number => received.get(`${e.email}|${step}`) ?? 0;
      if (e.status === 'completed') {
        for (let s = 1; s <= STEPS; s++)
          if (got(s) !== 1) problems.push(`${e.email} completed, step ${s} ×${got(s)}`);
      } else if (e.status === 'paused' && IN_DOUBT_NOTE.test(e.stop_note ?? '')) {
        inDoubt += 1;
        const doubtful = e.current_step + 1;
        for (let s = 1; s < doubtful; s++)
          if (got(s) !== 1) problems.push(`${e.email} paused, step ${s} ×${got(s)}`);
        for (let s = doubtful + 1; s <= STEPS; s++)
          if (got(s) !== 0) problems.push(`${e.email} paused at ${doubtful}, step ${s} ×${got(s)}`);
      } else {
        problems.push(`${e.email}: ${e.status} (${e.stop_note ?? 'no note'})`);
      }
    }
    expect(problems).toEqual([]);
    // At most 32 in doubt; a failure shows which kinds of note there were.
    const notes = new Map<string, number>();
    for (const e of enrollments.filter((x) => x.status === 'paused')) {
      const kind = (e.stop_note ?? '').replace(/\d+/g, 'N').slice(0, 90);
      notes.set(kind, (notes.get(kind) ?? 0) + 1);
    }
    expect({
      inDoubt,
      atMost32: inDoubt <= MAX_IN_DOUBT,
      ...(inDoubt > MAX_IN_DOUBT ? { notes: Object.fromEntries(notes) } : {}),
    }).toEqual({ inDoubt: expect.any(Number), atMost32: true });
    const [{ sending }] = (await db.query(
      `SELECT count(*)::int AS sending FROM messages WHERE workspace_id = $1 AND status = 'sending'`,
      [t.workspaceId],
    )) as Array<{ sending: number }>;
    expect(sending).toBe(0);
    expect(survivor.alive()).toBe(true);
  }, 180_000);
});
