/**
 * Fault: SIGKILL of the worker process in the middle of moving contacts into a subsequence.
 *
 * Real processes: an API process (the inbound route records the replies) and worker processes
 * (`node dist/main.js`, APP_ROLE=worker) whose `reply-categorize` sweep decides each reply's category
 * with the built-in rules and, in the same transaction, moves the contact (docs/sequences-that-react.md).
 * 60 contacts of a campaign with an `interested` subsequence (start_after_days 0) received step 1 at a
 * recording SMTP server; the campaign is paused (so no subsequence step goes out while the kills
 * happen), every contact answers "interested", and the worker doing the moving is killed with SIGKILL
 * three times at random points of its batch and started again; the fourth finishes. The campaign is
 * then resumed. Proves: every contact moved exactly once (parent `stopped`/`replied`, one subsequence
 * enrollment whose parent is it, one `enrollment.branched`), never two running enrollments of the
 * campaign for a contact, the subsequence's step at the SMTP server at most once per contact at every
 * kill and exactly once at the end, each reply categorised once.
 */
import { createFaultTenant, jsonClient } from '../helpers/faults-http.js';
import { sleep, startService, useProcesses, db } from '../helpers/processes.js';
import { startRecordingServer, type RecordingServer } from '../helpers/faults-smtp.js';
import { seedCampaign } from '../helpers/seed.js';
import { waitForCount } from '../helpers/wait.js';

const CONTACTS = 60;
const KILLS = 3;
/** What the rules read as `interested` (rules-classifier.spec.ts has the same kind of phrase). */
const INTERESTED = 'Sounds interesting. Send the deck and let us talk on Friday.';
const SUB_MARK = 'subsequence step for';

interface Kill {
  /** Contacts moved when the worker started, when the kill was sent, and once it had exited. */
  start: number;
  atKill: number;
  after: number;
}

describe('fault: SIGKILL of the worker mid-move (subsequences)', () => {
  let sink: RecordingServer | undefined;
  useProcesses({ after: () => sink?.close() });

  it('a worker killed mid-move leaves every contact in exactly one place', async () => {
    sink = await startRecordingServer();
    const smtp = sink;
    const t = await createFaultTenant(db);
    const ws = t.workspaceId;
    await db.query(
      `UPDATE workspaces SET config = config || '{"domain_daily_send_limit": 100000}'::jsonb WHERE id = $1`,
      [ws],
    );
    const c = await seedCampaign((sql, params) => db.query(sql, params), {
      workspaceId: ws,
      smtpPort: smtp.port,
      // Step 2 is far off: the parent enrollment is still running when the reply arrives.
      steps: [
        { subject: 'Hello {{ email }}', body: 'step one for {{ email }}' },
        { subject: null, body: 'step two for {{ email }}', delay_minutes: 600 },
      ],
    });
    const env = {
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:move-kill`,
      SEND_TICK_MS: '100',
      SEND_MIN_GAP_SECONDS: '0',
    };
    const [api, firstWorker] = await Promise.all([
      startService({ role: 'api', env }),
      startService({ role: 'worker', env }),
    ]);
    const http = jsonClient(api.url, t.token);
    const [seq] = (await db.query(
      `INSERT INTO sequences (workspace_id, name, status, steps, published_at)
       VALUES ($1, 'Interested', 'published', $2, now()) RETURNING id`,
      [
        ws,
        JSON.stringify([{ position: 1, delay_minutes: 0, subject: null, body: `${SUB_MARK} {{ email }}` }]),
      ],
    )) as Array<{ id: number }>;
    const created = await http.post(`/campaigns/${c.campaignId}/subsequences`, {
      name: 'Interested',
      trigger: { type: 'category', categories: ['interested'] },
      sequence_id: Number(seq.id),
      start_after_days: 0,
    });
    expect(created.status).toBe(201);
    const subId = Number(created.body.data.id);

    await db.query(
      `WITH c AS (
         INSERT INTO contacts (workspace_id, email)
         SELECT $1, 'move' || g || '@example.com' FROM generate_series(1, $2) g RETURNING id
       )
       INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
       SELECT $1, $3, c.id, 'active', 0, now() - interval '1 second' FROM c`,
      [ws, CONTACTS, c.campaignId],
    );
    const sentFirst = async () =>
      (await db.query(
        `SELECT to_address, message_id FROM messages
         WHERE workspace_id = $1 AND direction = 'outbound' AND status = 'sent'`,
        [ws],
      )) as Array<{ to_address: string; message_id: string }>;
    await waitForCount(async () => (await sentFirst()).length, CONTACTS, 'step 1 sent to every contact');
    const firsts = await sentFirst();

    // No subsequence step may go out while the worker is being killed: the moves are what is tested.
    expect((await http.patch(`/campaigns/${c.campaignId}`, { status: 'paused' })).status).toBe(200);
    await firstWorker.stop();

    // Every contact answers, through the inbox's inbound route (the API process records the reply).
    let n = 0;
    const reply = async (to: { to_address: string; message_id: string }): Promise<void> => {
      n += 1;
      const raw = [
        `From: ${to.to_address}`,
        'To: sender1@example.test',
        'Subject: Re: Hello',
        `Message-ID: <move-reply-${n}-${Date.now()}@example.com>`,
        `In-Reply-To: ${to.message_id}`,
        `References: ${to.message_id}`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        INTERESTED,
        '',
      ].join('\r\n');
      const res = await fetch(`${api.url}/api/v1/inbound/${c.inboxIds[0]}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.inboundSecrets[0]}`, 'content-type': 'message/rfc822' },
        body: raw,
        signal: AbortSignal.timeout(30_000),
      });
      expect(res.status).toBe(202);
      await res.text();
    };
    for (let i = 0; i < firsts.length; i += 6) await Promise.all(firsts.slice(i, i + 6).map(reply));
    const [{ replies }] = (await db.query(
      `SELECT count(*)::int AS replies FROM messages
       WHERE workspace_id = $1 AND kind = 'reply' AND category IS NULL`,
      [ws],
    )) as Array<{ replies: number }>;
    expect(replies).toBe(CONTACTS);

    const moved = async (): Promise<number> =>
      (
        (await db.query(
          `SELECT count(*)::int AS n FROM enrollments WHERE campaign_id = $1 AND subsequence_id IS NOT NULL`,
          [c.campaignId],
        )) as Array<{ n: number }>
      )[0].n;
    // Contacts of the campaign with more than one enrollment running (active or paused): never any.
    const twoRunning = async (): Promise<number[]> =>
      (
        (await db.query(
          `SELECT contact_id FROM enrollments WHERE campaign_id = $1 AND status IN ('active', 'paused')
           GROUP BY contact_id HAVING count(*) > 1`,
          [c.campaignId],
        )) as Array<{ contact_id: string }>
      ).map((r) => Number(r.contact_id));
    const subMails = (): Map<string, number> => {
      const byRecipient = new Map<string, number>();
      for (const m of smtp.received) {
        if (!m.raw.replace(/=\r\n/g, '').includes(SUB_MARK)) continue;
        for (const to of m.to) byRecipient.set(to, (byRecipient.get(to) ?? 0) + 1);
      }
      return byRecipient;
    };
    const problems: string[] = [];
    // A killed worker's claim on the replies it had not decided yet lasts 180 s; the restart stands in
    // for that wait by ending the lease (as the send tests move `next_step_at` for a retry).
    const endLeases = () =>
      db.query(
        `UPDATE messages SET category_lease_until = NULL
         WHERE workspace_id = $1 AND kind = 'reply' AND category IS NULL`,
        [ws],
      );

    const kills: Kill[] = [];
    for (let round = 0; round < KILLS; round++) {
      await endLeases();
      const start = await moved();
      // Somewhere in the first 15-60 % of what is left, so the worker is killed inside its batch.
      const left = CONTACTS - start;
      const target = start + Math.max(1, Math.floor(left * (0.15 + Math.random() * 0.45)));
      const worker = await startService({ role: 'worker', env });
      let atKill = start;
      const deadline = Date.now() + 40_000;
      while (Date.now() < deadline) {
        atKill = await moved();
        if (atKill >= target) break;
        await sleep(5);
      }
      await worker.kill('SIGKILL');
      expect(worker.child.signalCode).toBe('SIGKILL');
      // A COMMIT already sent when the process died may still land: read after a moment.
      await sleep(300);
      const after = await moved();
      kills.push({ start, atKill, after });
      for (const id of await twoRunning()) problems.push(`kill ${round + 1}: contact ${id} runs twice`);
      for (const [to, count] of subMails())
        if (count > 1) problems.push(`kill ${round + 1}: ${to} ×${count}`);
    }
    // The kills landed while moves were under way: some kill found moves done in its round and some
    // still to do.
    const midMove = kills.filter((k) => k.atKill > k.start && k.after < CONTACTS);
    expect({ kills, midMove: midMove.length > 0 }).toEqual({ kills, midMove: true });

    // A last worker finishes the moves; then the campaign is resumed and the subsequence's step goes out.
    await endLeases();
    const last = await startService({ role: 'worker', env });
    await waitForCount(moved, CONTACTS, 'every contact moved').catch(async (err: Error) => {
      throw new Error(`${err.message}; kills ${JSON.stringify(kills)}\n${last.problems()}`);
    });
    for (const id of await twoRunning()) problems.push(`after the moves: contact ${id} runs twice`);
    expect((await http.patch(`/campaigns/${c.campaignId}`, { status: 'active' })).status).toBe(200);
    const completedSubs = async (): Promise<number> =>
      (
        (await db.query(
          `SELECT count(*)::int AS n FROM enrollments
           WHERE campaign_id = $1 AND subsequence_id IS NOT NULL AND status = 'completed'`,
          [c.campaignId],
        )) as Array<{ n: number }>
      )[0].n;
    await waitForCount(completedSubs, CONTACTS, 'every subsequence enrollment completed').catch(
      async (err: Error) => {
        throw new Error(`${err.message}; ${subMails().size} received\n${last.problems()}`);
      },
    );
    await sleep(1000); // a few more ticks: nothing else may go out

    // Per contact: the parent ended `replied`, one subsequence enrollment of it, one branched event.
    const rows = (await db.query(
      `SELECT ct.id AS contact_id, ct.email,
         (SELECT jsonb_agg(jsonb_build_object('id', e.id, 'status', e.status, 'stop_reason', e.stop_reason,
                 'subsequence_id', e.subsequence_id, 'parent_enrollment_id', e.parent_enrollment_id))
            FROM enrollments e WHERE e.campaign_id = $2 AND e.contact_id = ct.id) AS enrollments,
         (SELECT jsonb_agg(ev.data) FROM events ev
            WHERE ev.workspace_id = $1 AND ev.type = 'enrollment.branched'
              AND (ev.data->>'contact_id')::bigint = ct.id) AS branched,
         (SELECT jsonb_agg(jsonb_build_object('category', r.category, 'source', r.category_source))
            FROM messages r JOIN threads th ON th.workspace_id = r.workspace_id AND th.id = r.thread_id
            WHERE r.workspace_id = $1 AND r.kind = 'reply' AND th.contact_id = ct.id) AS replies,
         (SELECT count(*)::int FROM events ev
            WHERE ev.workspace_id = $1 AND ev.type = 'email.categorized'
              AND (ev.data->>'contact_id')::bigint = ct.id) AS categorized
       FROM contacts ct WHERE ct.workspace_id = $1 ORDER BY ct.id`,
      [ws, c.campaignId],
    )) as Array<{
      contact_id: string;
      email: string;
      enrollments: Array<{
        id: number;
        status: string;
        stop_reason: string | null;
        subsequence_id: number | null;
        parent_enrollment_id: number | null;
      }>;
      branched: Array<{ enrollment_id: number; parent_enrollment_id: number; subsequence_id: number }> | null;
      replies: Array<{ category: string | null; source: string | null }>;
      categorized: number;
    }>;
    expect(rows).toHaveLength(CONTACTS);
    const mails = subMails();
    const firstMails = new Map<string, number>();
    for (const m of smtp.received)
      if (m.raw.replace(/=\r\n/g, '').includes('step one for'))
        for (const to of m.to) firstMails.set(to, (firstMails.get(to) ?? 0) + 1);
    for (const r of rows) {
      const who = r.email;
      const parents = r.enrollments.filter((e) => e.subsequence_id === null);
      const subs = r.enrollments.filter((e) => e.subsequence_id !== null);
      if (parents.length !== 1 || r.enrollments.length !== 2) {
        problems.push(`${who}: enrollments ${JSON.stringify(r.enrollments)}`);
        continue;
      }
      const [parent] = parents;
      if (parent.status !== 'stopped' || parent.stop_reason !== 'replied')
        problems.push(`${who}: parent ${parent.status}/${parent.stop_reason}`);
      if (
        subs.length !== 1 ||
        Number(subs[0].subsequence_id) !== subId ||
        Number(subs[0].parent_enrollment_id) !== Number(parent.id) ||
        subs[0].status !== 'completed'
      )
        problems.push(`${who}: subsequence enrollments ${JSON.stringify(subs)}`);
      const branched = r.branched ?? [];
      if (
        branched.length !== 1 ||
        Number(branched[0].enrollment_id) !== Number(subs[0]?.id) ||
        Number(branched[0].parent_enrollment_id) !== Number(parent.id)
      )
        problems.push(`${who}: enrollment.branched ${JSON.stringify(branched)}`);
      if (r.replies.length !== 1 || r.replies[0].category !== 'interested' || r.replies[0].source !== 'rules')
        problems.push(`${who}: replies ${JSON.stringify(r.replies)}`);
      if (r.categorized !== 1) problems.push(`${who}: email.categorized ×${r.categorized}`);
      if ((firstMails.get(who) ?? 0) !== 1) problems.push(`${who}: step 1 ×${firstMails.get(who) ?? 0}`);
      if ((mails.get(who) ?? 0) !== 1) problems.push(`${who}: subsequence step ×${mails.get(who) ?? 0}`);
    }
    expect(problems).toEqual([]);
    expect(last.alive()).toBe(true);
  }, 180_000);
});
