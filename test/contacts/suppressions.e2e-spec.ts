import { suppressAddress } from '../helpers/domain-writes.js';
import { api, createTenant, type TestTenant, useApp, app, db, workspaceKey } from '../helpers/app.js';

interface Entry {
  id: number;
  email: string | null;
  domain: string | null;
  reason: string;
  created_at: string;
}

describe('suppressions: list, add by address and domain, sendable everywhere', () => {
  useApp();

  const contact = async (t: TestTenant, email: string) => {
    const res = await api(app, t.token).post('/contacts').send({ email, first_name: 'Test' });
    expect(res.status).toBe(200);
    return res.body.data as { id: number; sendable: boolean; suppression: unknown };
  };
  const show = async (t: TestTenant, id: number) =>
    (await api(app, t.token).get(`/contacts/${id}`)).body.data as {
      sendable: boolean;
      suppression: { reason: string; created_at: string } | null;
    };
  const emailsWhere = async (t: TestTenant, qs: string): Promise<string[]> => {
    const res = await api(app, t.token).get(`/contacts${qs}`);
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ email: string }>).map((c) => c.email).sort();
  };

  it('suppressing an address answers 201 with the entry and makes its contact unsendable; re-posting answers 200', async () => {
    const t = await createTenant(app);
    const target = await contact(t, 'stop@example.com');
    const bystander = await contact(t, 'keep@example.com');
    expect(target.sendable).toBe(true);

    const res = await api(app, t.token).post('/suppressions').send({ email: ' STOP@Example.com ' });
    expect(res.status).toBe(201);
    const entry = res.body.data as Entry;
    expect(Object.keys(entry).sort()).toEqual(['created_at', 'domain', 'email', 'id', 'reason']);
    expect(entry).toMatchObject({ email: 'stop@example.com', domain: null, reason: 'manual' });

    const after = await show(t, target.id);
    expect(after.sendable).toBe(false);
    expect(after.suppression).toEqual({ reason: 'manual', created_at: entry.created_at });
    expect((await show(t, bystander.id)).sendable).toBe(true);

    const again = await api(app, t.token).post('/suppressions').send({ email: 'stop@example.com' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(entry);

    const list = await api(app, t.token).get('/suppressions');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([entry]);

    expect(await emailsWhere(t, '?sendable=false')).toEqual(['stop@example.com']);
    expect(await emailsWhere(t, '?sendable=true')).toEqual(['keep@example.com']);
  });

  it('suppressing a domain makes every contact at exactly that domain unsendable, now and when created later', async () => {
    const t = await createTenant(app);
    const a = await contact(t, 'a@blocked.example');
    const b = await contact(t, 'b@blocked.example');
    const sub = await contact(t, 'c@sub.blocked.example');
    const ok = await contact(t, 'd@fine.example');

    const res = await api(app, t.token).post('/suppressions').send({ domain: 'Blocked.Example.' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ email: null, domain: 'blocked.example', reason: 'manual' });

    expect((await show(t, a.id)).sendable).toBe(false);
    expect((await show(t, b.id)).sendable).toBe(false);
    expect((await show(t, sub.id)).sendable).toBe(true);
    expect((await show(t, ok.id)).sendable).toBe(true);

    // Created (or re-posted) after the entry: suppressed from the start, whatever is sent again.
    const late = await contact(t, 'late@blocked.example');
    expect(late.sendable).toBe(false);
    expect(late.suppression).toEqual({ reason: 'manual', created_at: res.body.data.created_at });
    const repost = await api(app, t.token)
      .post('/contacts')
      .send({ email: 'late@blocked.example', first_name: 'Again' });
    expect(repost.body.data.sendable).toBe(false);

    expect(await emailsWhere(t, '?sendable=false')).toEqual([
      'a@blocked.example',
      'b@blocked.example',
      'late@blocked.example',
    ]);
    expect(await emailsWhere(t, '?sendable=true')).toEqual(['c@sub.blocked.example', 'd@fine.example']);

    const again = await api(app, t.token).post('/suppressions').send({ domain: 'blocked.example' });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(res.body.data.id);
  });

  it('a contact keeps the first entry that suppressed it; address entries still get listed', async () => {
    const t = await createTenant(app);
    const c = await contact(t, 'x@dom.example');
    const domainEntry = (await api(app, t.token).post('/suppressions').send({ domain: 'dom.example' })).body
      .data as Entry;
    const addr = await api(app, t.token).post('/suppressions').send({ email: 'x@dom.example' });
    expect(addr.status).toBe(201);
    expect((await show(t, c.id)).suppression).toEqual({
      reason: 'manual',
      created_at: domainEntry.created_at,
    });
    const list = (await api(app, t.token).get('/suppressions')).body.data as Entry[];
    expect(list.map((e) => e.id)).toEqual([addr.body.data.id, domainEntry.id]);
  });

  it('suppressAddress (engine entry point) adds the entry with its reason and flips the contact in the caller’s transaction', async () => {
    const t = await createTenant(app);
    const c = await contact(t, 'bouncy@example.com');
    const entry = await db.transaction((m) =>
      suppressAddress(m, t.workspaceId, 'Bouncy@Example.com', 'bounced'),
    );
    expect(entry).toMatchObject({
      email: 'bouncy@example.com',
      reason: 'bounced',
      workspaceId: t.workspaceId,
    });
    expect((await show(t, c.id)).suppression?.reason).toBe('bounced');

    // A rolled-back transaction leaves neither the entry nor the contact change behind.
    const d = await contact(t, 'rolled@example.com');
    await expect(
      db.transaction(async (m) => {
        await suppressAddress(m, t.workspaceId, 'rolled@example.com', 'unsubscribed');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await show(t, d.id)).sendable).toBe(true);
    const list = (await api(app, t.token).get('/suppressions?reason=bounced')).body.data as Entry[];
    expect(list.map((e) => e.email)).toEqual(['bouncy@example.com']);
    expect((await api(app, t.token).get('/suppressions?reason=unsubscribed')).body.data).toEqual([]);
    // An existing entry keeps its first reason.
    const again = await db.transaction((m) =>
      suppressAddress(m, t.workspaceId, 'bouncy@example.com', 'complained'),
    );
    expect(again.id).toBe(entry.id);
    expect(again.reason).toBe('bounced');
  });

  it('suppressions racing contact inserts never leave a suppressed address sendable', async () => {
    const t = await createTenant(app);
    const posts = Array.from({ length: 30 }, (_, i) =>
      api(app, t.token)
        .post('/contacts')
        .send({ email: `r${i}@race.example`, first_name: 'Racer' }),
    );
    const suppress = api(app, t.token).post('/suppressions').send({ domain: 'race.example' });
    const results = await Promise.all([...posts.slice(0, 15), suppress, ...posts.slice(15)]);
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    const rows = (await db.query(
      `SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1 AND suppression_reason IS NULL`,
      [t.workspaceId],
    )) as Array<{ n: number }>;
    expect(rows[0].n).toBe(0);
    expect(await emailsWhere(t, '?sendable=true&per_page=100')).toEqual([]);
  });

  it('validates the body: exactly one of email or domain, both well-formed', async () => {
    const t = await createTenant(app);
    for (const [body, field] of [
      [{}, 'email'],
      [{ email: 'a@example.com', domain: 'example.com' }, 'domain'],
      [{ email: 'nope' }, 'email'],
      [{ email: null }, 'email'],
      [{ domain: 'not a domain' }, 'domain'],
      [{ domain: 'localhost' }, 'domain'],
      [{ domain: '@example.com' }, 'domain'],
      [{ domain: 42 }, 'domain'],
      [{ email: 'a@example.com', reason: 'bounced' }, 'reason'],
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await api(app, t.token).post('/suppressions').send(body);
      expect({ body, status: res.status, field: res.body.error?.field }).toEqual({
        body,
        status: 422,
        field,
      });
    }
    expect((await api(app, t.token).get('/suppressions')).body.data).toEqual([]);
    for (const qs of ['reason=spam', 'email=nope', 'per_page=0']) {
      expect((await api(app, t.token).get(`/suppressions?${qs}`)).status).toBe(422);
    }
  });

  it('lists newest first with paging, scoped to the workspace; no route removes an entry', async () => {
    const t = await createTenant(app);
    const other = await createTenant(app);
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push(
        (
          await api(app, t.token)
            .post('/suppressions')
            .send({ email: `s${i}@example.com` })
        ).body.data.id,
      );
    }
    await api(app, other.token).post('/suppressions').send({ email: 'theirs@example.com' });
    const p1 = await api(app, t.token).get('/suppressions?per_page=5');
    const p2 = await api(app, t.token).get(`/suppressions?per_page=5&cursor=${p1.body.next_cursor}`);
    expect([...p1.body.data, ...p2.body.data].map((e: Entry) => e.id)).toEqual([...ids].reverse());
    expect(p2.body.next_cursor).toBeNull();
    const foreignCursor = (await api(app, t.token).get('/contacts?per_page=1')).body.next_cursor;
    expect(foreignCursor).toBeNull();
    const cross = await api(app, other.token).get(`/suppressions?cursor=${p1.body.next_cursor}`);
    expect(cross.status).toBe(422);
    expect(cross.body.error.field).toBe('cursor');

    const del = await api(app, t.token).delete(`/suppressions/${ids[0]}`);
    expect([404, 405]).toContain(del.status);
    const delAll = await api(app, t.token).delete('/suppressions');
    expect(delAll.status).toBe(405);
    expect((await api(app, t.token).get('/suppressions?per_page=100')).body.data).toHaveLength(7);
  });

  it('gates by scope: contacts:read lists, contacts:write adds', async () => {
    const t = await createTenant(app);
    const readOnly = await workspaceKey(app, t.workspaceId, ['contacts:read']);
    const writeOnly = await workspaceKey(app, t.workspaceId, ['contacts:write']);
    const post = await api(app, readOnly).post('/suppressions').send({ email: 'x@example.com' });
    expect(post.status).toBe(403);
    expect(post.body.error.type).toBe('forbidden');
    expect((await api(app, writeOnly).get('/suppressions')).status).toBe(403);
    expect((await api(app, writeOnly).post('/suppressions').send({ email: 'x@example.com' })).status).toBe(
      201,
    );
    const listed = await api(app, readOnly).get('/suppressions');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
  });
});
