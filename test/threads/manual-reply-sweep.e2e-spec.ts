/**
 * A manual reply whose process died mid-send is resolved by the worker's sweep: `failed`, outcome
 * unknown, never resent; one still within any SMTP timeout, and the campaign's own messages, are
 * left alone.
 */
import { ManualReplySweeper, STALE_SECONDS } from '../../src/modules/sending/manual/manual-reply-sweeper.js';
import { api, createTenant, useApp, app, db } from '../helpers/app.js';

describe('manual replies left sending', () => {
  useApp();

  it('marks a stale one failed (outcome unknown), in batches, and leaves the others', async () => {
    const t = await createTenant(app);
    const [contact] = (await db.query(
      `INSERT INTO contacts (workspace_id, email) VALUES ($1, 'pat@example.com') RETURNING id`,
      [t.workspaceId],
    )) as Array<{ id: number }>;
    const [inbox] = (await db.query(
      `INSERT INTO inboxes (workspace_id, email, domain, smtp_sealed, inbound_secret_hash)
       VALUES ($1, 'sam@acme.test', 'acme.test', 'x', 'x') RETURNING id`,
      [t.workspaceId],
    )) as Array<{ id: string }>;
    const [thread] = (await db.query(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, subject) VALUES ($1, $2, $3, 'Hi') RETURNING id`,
      [t.workspaceId, inbox.id, contact.id],
    )) as Array<{ id: number }>;
    const message = async (kind: string, startedSecondsAgo: number): Promise<number> => {
      const [m] = (await db.query(
        `INSERT INTO messages (workspace_id, thread_id, direction, kind, from_address, to_address, subject, body,
           status, smtp_started_at)
         VALUES ($1, $2, 'outbound', $3, 'sam@acme.test', 'pat@example.com', 'Re: Hi', 'Hello', 'sending',
           now() - make_interval(secs => $4))
         RETURNING id`,
        [t.workspaceId, thread.id, kind, startedSecondsAgo],
      )) as Array<{ id: number }>;
      return m.id;
    };
    const stale = [await message('manual', STALE_SECONDS + 60), await message('manual', STALE_SECONDS + 120)];
    const fresh = await message('manual', 30);
    const campaignStep = await message('email', STALE_SECONDS + 60);
    const status = async (id: number) =>
      (
        (await db.query(`SELECT status, error FROM messages WHERE id = $1`, [id])) as Array<{
          status: string;
          error: string | null;
        }>
      )[0];

    const sweeper = app.get(ManualReplySweeper);
    // Batches of one: each of the two stale replies fills one; the third pass finds nothing.
    expect(await sweeper.sweepOnce(1)).toBe(true);
    expect((await status(stale[1])).status).toBe('failed'); // the oldest first
    expect((await status(stale[0])).status).toBe('sending');
    expect(await sweeper.sweepOnce(1)).toBe(true);
    expect(await sweeper.sweepOnce(1)).toBe(false);
    for (const id of stale) {
      const s = await status(id);
      expect(s.status).toBe('failed');
      expect(s.error).toMatch(/^outcome unknown: /);
    }
    expect((await status(fresh)).status).toBe('sending');
    // The engine's own messages in doubt are the engine's to resolve (paused for review).
    expect((await status(campaignStep)).status).toBe('sending');
    const shown = await api(app, t.token).get(`/messages/${stale[0]}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({ status: 'failed', kind: 'manual' });
    expect(await sweeper.sweepOnce()).toBe(false);
  });
});
