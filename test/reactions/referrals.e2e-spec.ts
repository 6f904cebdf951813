/**
 * Sequences that react, referrals (CONTRACT §23), on the real stack: the engine sends step 1 to the
 * SMTP sink, a `wrong_person` reply posted to `POST /inbound/{inbox_id}` (categorised by the
 * `reply-categorize` sweep's rules) names a colleague; at the replier's own domain she becomes a
 * contact (`source: referral`, referred by the replier, the company copied) and the campaign's
 * `referral` subsequence sends her its first step, rendering `{{referrer.first_name}}`; at another
 * domain the address is kept on the thread only. So is a suppressed address, one already enrolled in
 * the campaign and a new one past the contact cap (also when another transaction takes the last room,
 * or adds the suppression, at the same moment: held open by the test, deterministic); of ten
 * colleagues named, one is referred.
 */
import {
  all,
  api,
  app,
  createTenant,
  db,
  FAST_SENDING,
  one,
  q,
  useApp,
  type TestTenant,
} from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import {
  FIRST_STEP_NOW,
  seedCampaign,
  seedContact,
  sendFirstSteps,
  type FirstSend,
  type SeededCampaign,
} from '../helpers/seed.js';
import { mailsTo as sinkMailsTo, postInThread, publishedStep } from '../helpers/reactions.js';
import { waitFor } from '../helpers/wait.js';
import type { QueryRunner } from 'typeorm';

describe('subsequences: referrals from a wrong_person reply', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  useApp({ env: FAST_SENDING });
  afterAll(async () => {
    await sink.close();
  });

  /** The campaign's `referral` subsequence: a new conversation with its own subject. */
  const addReferralSub = async (t: TestTenant, c: SeededCampaign) => {
    const res = await api(app, t.token)
      .post(`/campaigns/${c.campaignId}/subsequences`)
      .send({
        name: 'Referral',
        trigger: { type: 'referral' },
        sequence_id: await publishedStep(
          t,
          '{{ referrer.first_name }} ({{ referrer.email }}) suggested I write to you.',
          'Hello {{ first_name }}',
        ),
      });
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  };
  const reply = async (c: SeededCampaign, to: FirstSend, from: string, body: string): Promise<string> =>
    (await postInThread(c, to, { from, body })).messageId;
  const mailsTo = (address: string) => sinkMailsTo(sink, address);

  /** A tenant whose campaign has a `referral` subsequence and has sent step 1 to `who`@example.com. */
  const started = async (who: string, plan: { maxContactsPerWorkspace?: number } = {}) => {
    const t = await createTenant(app, plan);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const subId = await addReferralSub(t, c);
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, [who], sent);
    await waitFor(async () => mailsTo(`${who}@example.com`)[0] ?? null, 'step 1 in the sink');
    return { t, c, subId, sent, to: sent.get(who)! };
  };
  /** Posts `body` from `who`@example.com in its thread and waits until the sweep categorised it. */
  const wrongPerson = async (t: TestTenant, c: SeededCampaign, to: FirstSend, who: string, body: string) => {
    const { messageId } = await postInThread(c, to, { from: `${who}@example.com`, body });
    await waitFor(
      async () =>
        (
          await one<{ category: string | null } | undefined>(
            'SELECT category FROM messages WHERE workspace_id = $1 AND message_id = $2',
            [t.workspaceId, messageId],
          )
        )?.category === 'wrong_person',
      'the reply categorised wrong_person',
    );
    return one<{ id: string; referral_email: string | null }>(
      'SELECT id, referral_email FROM threads WHERE contact_id = $1',
      [to.contactId],
    );
  };
  /** A transaction of its own (another API request, import or worker), left open by the test. */
  const otherTransaction = async () => {
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    return runner;
  };
  /** Whether a session waits for a lock the `holder` transaction holds. */
  const blockedBy = async (holder: QueryRunner): Promise<boolean> => {
    const [{ pid }] = (await holder.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
    return (
      (await all(`SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [pid])).length > 0
    );
  };
  const contactsAt = (t: TestTenant, email: string) =>
    q(`SELECT id, suppression_reason FROM contacts WHERE workspace_id = $1 AND email = $2`, [
      t.workspaceId,
      email,
    ]) as Promise<Array<{ id: string; suppression_reason: string | null }>>;
  const referredEvents = async (t: TestTenant) =>
    (
      (await q(`SELECT data FROM events WHERE workspace_id = $1 AND type = 'contact.referred' ORDER BY id`, [
        t.workspaceId,
      ])) as Array<{ data: Record<string, unknown> }>
    ).map((e) => e.data);
  const enrollmentsOf = (contactId: number | string) =>
    q('SELECT id, subsequence_id, status FROM enrollments WHERE contact_id = $1', [contactId]) as Promise<
      Array<{ id: string; subsequence_id: string | null; status: string }>
    >;

  it('a wrong_person reply naming a colleague at the same domain creates her and enrolls her in the referral subsequence', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const subId = await addReferralSub(t, c);
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['refann'], sent);
    const ann = sent.get('refann')!;
    await q(`UPDATE contacts SET company = 'Example Corp' WHERE id = $1`, [ann.contactId]);
    const first = await waitFor(async () => mailsTo('refann@example.com')[0] ?? null, 'step 1 in the sink');
    await reply(
      c,
      ann,
      'refann@example.com',
      "I'm not the right person for this, please contact Jane Doe <jane.doe@example.com> instead.",
    );

    const jane = await waitFor(
      async () =>
        (await one<
          | {
              id: string;
              source: string;
              referred_by_contact_id: string;
              company: string | null;
              first_name: string | null;
              last_name: string | null;
            }
          | undefined
        >(`SELECT * FROM contacts WHERE workspace_id = $1 AND email = 'jane.doe@example.com'`, [
          t.workspaceId,
        ])) ?? null,
      'referred contact created',
    );
    expect(jane).toMatchObject({
      source: 'referral',
      company: 'Example Corp',
      first_name: 'Jane',
      last_name: 'Doe',
    });
    expect(Number(jane.referred_by_contact_id)).toBe(ann.contactId);
    const thread = await one<{ id: string }>('SELECT id FROM threads WHERE contact_id = $1', [ann.contactId]);
    const shown = await api(app, t.token).get(`/threads/${thread.id}`);
    expect(shown.body.data.referral_email).toBe('jane.doe@example.com');

    const enrollment = await one<{ subsequence_id: string; inbox_id: string; campaign_id: string }>(
      'SELECT subsequence_id, inbox_id, campaign_id FROM enrollments WHERE contact_id = $1',
      [jane.id],
    );
    expect(Number(enrollment.subsequence_id)).toBe(subId);
    expect(Number(enrollment.campaign_id)).toBe(c.campaignId);

    const hers = await waitFor(
      async () => mailsTo('jane.doe@example.com')[0] ?? null,
      'referral step in the sink',
    );
    expect(hers.from).toBe(first.from);
    expect(hers.parsed.subject).toBe('Hello Jane');
    expect(hers.parsed.text).toContain('refann (refann@example.com) suggested I write to you.');
    expect(hers.parsed.inReplyTo).toBeUndefined();

    const event = await one<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'contact.referred'`,
      [t.workspaceId],
    );
    expect(event.data).toEqual({
      contact_id: Number(jane.id),
      referred_by_contact_id: ann.contactId,
      thread_id: Number(thread.id),
      campaign_id: c.campaignId,
      enrolled: true,
    });
  });

  it('an address at another domain is recorded on the thread only: no contact, no enrollment, no mail', async () => {
    const { t, c, to: bob } = await started('refbob');
    await reply(
      c,
      bob,
      'refbob@example.com',
      "I'm not the right person for this, please contact max.braun@other-corp.test instead.",
    );
    const thread = await waitFor(
      async () =>
        (await one<{ id: string; referral_email: string | null }>(
          'SELECT id, referral_email FROM threads WHERE contact_id = $1',
          [bob.contactId],
        )) ?? null,
      'thread',
    );
    const recorded = await waitFor(
      async () =>
        (
          await one<{ referral_email: string | null }>('SELECT referral_email FROM threads WHERE id = $1', [
            thread.id,
          ])
        ).referral_email,
      'referral recorded',
    );
    expect(recorded).toBe('max.braun@other-corp.test');
    expect(
      await q(`SELECT id FROM contacts WHERE workspace_id = $1 AND email = 'max.braun@other-corp.test'`, [
        t.workspaceId,
      ]),
    ).toHaveLength(0);
    expect(
      await q(`SELECT id FROM events WHERE workspace_id = $1 AND type = 'contact.referred'`, [t.workspaceId]),
    ).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo('max.braun@other-corp.test')).toHaveLength(0);
  });

  it('a wrong_person reply someone else wrote in the thread refers nobody', async () => {
    const { t, c, to: carl } = await started('refcarl');
    // Forwarded to (or forged by) someone at another company, who names a colleague of theirs.
    const { messageId } = await postInThread(c, carl, {
      from: 'mallory@elsewhere.test',
      body: "I'm not the right person for this, please contact victim@elsewhere.test instead.",
    });
    await waitFor(
      async () =>
        (
          await one<{ category: string | null } | undefined>(
            'SELECT category FROM messages WHERE workspace_id = $1 AND message_id = $2',
            [t.workspaceId, messageId],
          )
        )?.category === 'wrong_person',
      'the reply categorised wrong_person',
    );
    expect(
      await q(`SELECT id FROM contacts WHERE workspace_id = $1 AND email = 'victim@elsewhere.test'`, [
        t.workspaceId,
      ]),
    ).toHaveLength(0);
    const thread = await one<{ referral_email: string | null }>(
      'SELECT referral_email FROM threads WHERE contact_id = $1',
      [carl.contactId],
    );
    expect(thread.referral_email).toBeNull();
    expect(
      await q(`SELECT id FROM events WHERE workspace_id = $1 AND type = 'contact.referred'`, [t.workspaceId]),
    ).toHaveLength(0);
  });
  it('a suppressed address is recorded on the thread only: no contact created, nothing sent, no event', async () => {
    const { t, c, to } = await started('refsup');
    expect((await api(app, t.token).post('/suppressions').send({ email: 'gone@example.com' })).status).toBe(
      201,
    );
    const thread = await wrongPerson(
      t,
      c,
      to,
      'refsup',
      "I'm not the right person, please contact gone@example.com instead.",
    );
    expect(thread.referral_email).toBe('gone@example.com');
    expect(await contactsAt(t, 'gone@example.com')).toHaveLength(0);
    expect(await referredEvents(t)).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo('gone@example.com')).toHaveLength(0);
  });

  it('a suppressed contact (its domain listed) is recorded only: not enrolled, nothing sent; contact.referred says enrolled: false', async () => {
    const { t, c, to } = await started('refsupc');
    const knownId = await seedContact(q, t.workspaceId, 'former@sub.example.com');
    expect((await api(app, t.token).post('/suppressions').send({ domain: 'sub.example.com' })).status).toBe(
      201,
    );
    const thread = await wrongPerson(
      t,
      c,
      to,
      'refsupc',
      "I'm not the right person, please contact former@sub.example.com instead.",
    );
    expect(thread.referral_email).toBe('former@sub.example.com');
    expect(await enrollmentsOf(knownId)).toEqual([]);
    expect((await contactsAt(t, 'former@sub.example.com'))[0].suppression_reason).toBe('manual');
    expect(await referredEvents(t)).toEqual([
      {
        contact_id: knownId,
        referred_by_contact_id: to.contactId,
        thread_id: Number(thread.id),
        campaign_id: c.campaignId,
        enrolled: false,
      },
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo('former@sub.example.com')).toHaveLength(0);
  });

  it('an address already enrolled in the campaign is recorded only: no second enrollment, no referral step', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    await addReferralSub(t, c);
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['refdora', 'refeve'], sent);
    await waitFor(async () => mailsTo('refeve@example.com')[0] ?? null, 'step 1 to eve');
    const dora = sent.get('refdora')!;
    const eve = sent.get('refeve')!;
    const thread = await wrongPerson(
      t,
      c,
      dora,
      'refdora',
      "I'm not the right person for this, please contact refeve@example.com instead.",
    );
    expect(thread.referral_email).toBe('refeve@example.com');
    const hers = await enrollmentsOf(eve.contactId);
    expect(hers.map((e) => [Number(e.id), e.subsequence_id])).toEqual([[eve.enrollmentId, null]]);
    expect(await referredEvents(t)).toEqual([
      {
        contact_id: eve.contactId,
        referred_by_contact_id: dora.contactId,
        thread_id: Number(thread.id),
        campaign_id: c.campaignId,
        enrolled: false,
      },
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo('refeve@example.com')).toHaveLength(1);
  });

  it('a workspace at its contact cap: the address is recorded on the thread, the reply stored and categorised, no contact', async () => {
    // The cap is the replier alone.
    const { t, c, to } = await started('refcap', { maxContactsPerWorkspace: 1 });
    const thread = await wrongPerson(
      t,
      c,
      to,
      'refcap',
      "I'm not the right person, please contact capped.person@example.com instead.",
    );
    expect(thread.referral_email).toBe('capped.person@example.com');
    expect(await contactsAt(t, 'capped.person@example.com')).toHaveLength(0);
    expect(await referredEvents(t)).toEqual([]);
    const shown = await api(app, t.token).get(`/threads/${thread.id}`);
    expect(shown.body.data.category).toBe('wrong_person');
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo('capped.person@example.com')).toHaveLength(0);
  });

  it('a workspace reaching its cap while the referral is made (another creator commits first): the reply is still categorised, no contact', async () => {
    // Room for one more contact when the referral reads the cap; another transaction takes it first.
    const { t, c, to } = await started('refrace', { maxContactsPerWorkspace: 2 });
    const other = await otherTransaction();
    try {
      await other.query(`INSERT INTO contacts (workspace_id, email) VALUES ($1, 'first.in@example.com')`, [
        t.workspaceId,
      ]);
      const { messageId } = await postInThread(c, to, {
        from: 'refrace@example.com',
        body: "I'm not the right person, please contact late.person@example.com instead.",
      });
      // The sweep's insert of the referred contact waits for the counter row the other creator holds.
      await waitFor(() => blockedBy(other), 'the referral waiting on the contact counter');
      await other.commitTransaction();
      await waitFor(
        async () =>
          (
            await one<{ category: string | null } | undefined>(
              'SELECT category FROM messages WHERE workspace_id = $1 AND message_id = $2',
              [t.workspaceId, messageId],
            )
          )?.category === 'wrong_person',
        'the reply categorised wrong_person (not left for a retry)',
        5000,
      );
    } finally {
      if (other.isTransactionActive) await other.rollbackTransaction();
      await other.release();
    }
    const thread = await one<{ referral_email: string | null }>(
      'SELECT referral_email FROM threads WHERE contact_id = $1',
      [to.contactId],
    );
    expect(thread.referral_email).toBe('late.person@example.com');
    expect(await contactsAt(t, 'late.person@example.com')).toHaveLength(0);
    expect(await referredEvents(t)).toEqual([]);
  });

  it('a reply naming ten addresses at the same domain refers one person', async () => {
    const { t, c, to, subId } = await started('refmany');
    const names = Array.from({ length: 10 }, (_, i) => `person${i}@example.com`);
    const thread = await wrongPerson(
      t,
      c,
      to,
      'refmany',
      `I'm not the right person. Our team: ${names.join(', ')}. Please contact person3@example.com instead.`,
    );
    expect(thread.referral_email).toBe('person3@example.com');
    const created = (await q(
      `SELECT id, email FROM contacts WHERE workspace_id = $1 AND source = 'referral'`,
      [t.workspaceId],
    )) as Array<{ id: string; email: string }>;
    expect(created.map((r) => r.email)).toEqual(['person3@example.com']);
    const enrolled = (await q('SELECT contact_id FROM enrollments WHERE subsequence_id = $1', [
      subId,
    ])) as Array<{ contact_id: string }>;
    expect(enrolled.map((e) => Number(e.contact_id))).toEqual([Number(created[0].id)]);
    expect(await referredEvents(t)).toHaveLength(1);
  });
  it('a suppression added while the referral is made: the referred person is never left sendable', async () => {
    const { t, c, to } = await started('refsrace');
    const other = await otherTransaction();
    let categorised = false;
    try {
      // What adding to the list does (the suppressions module): the list's lock, exclusive; the entry;
      // then the matching contacts marked unsendable, all in one transaction.
      await other.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `suppressions:${t.workspaceId}`,
      ]);
      await other.query(
        `INSERT INTO suppressions (workspace_id, email, reason) VALUES ($1, 'racer@example.com', 'manual')`,
        [t.workspaceId],
      );
      const { messageId } = await postInThread(c, to, {
        from: 'refsrace@example.com',
        body: "I'm not the right person, please contact racer@example.com instead.",
      });
      const done = async () =>
        (
          await one<{ category: string | null } | undefined>(
            'SELECT category FROM messages WHERE workspace_id = $1 AND message_id = $2',
            [t.workspaceId, messageId],
          )
        )?.category === 'wrong_person';
      // The referral waits for the list, or (without the lock) has already committed the contact.
      await waitFor(async () => (await blockedBy(other)) || (categorised = await done()), 'the referral');
      await other.query(
        `UPDATE contacts SET suppression_reason = 'manual', suppressed_at = now()
         WHERE workspace_id = $1 AND email = 'racer@example.com' AND suppression_reason IS NULL`,
        [t.workspaceId],
      );
      await other.commitTransaction();
      await waitFor(done, 'the reply categorised wrong_person');
    } finally {
      if (other.isTransactionActive) await other.rollbackTransaction();
      await other.release();
    }
    const racer = await contactsAt(t, 'racer@example.com');
    // Never a sendable contact with a running enrollment.
    expect(racer.filter((r) => r.suppression_reason === null)).toEqual([]);
    for (const r of racer) {
      expect((await enrollmentsOf(r.id)).filter((e) => e.status === 'active')).toEqual([]);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo('racer@example.com')).toHaveLength(0);
    // It waited for the list's entry rather than deciding before it.
    expect(categorised).toBe(false);
  });
});
