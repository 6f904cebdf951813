import { DataSource } from 'typeorm';
import { upsertContacts, validateContactRow } from '../helpers/domain-writes.js';
import { CanonicalContactTimezones1799700000000 } from '../../src/database/migrations/1799700000000-CanonicalContactTimezones.js';
import { api, createTenant, type TestTenant, useApp, app, db, workspaceKey } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';

interface ContactBody {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
  timezone: string | null;
  custom_fields: Record<string, string>;
  stage: string;
  sendable: boolean;
  suppression: { reason: string; created_at: string } | null;
  source: string;
  created_at: string;
  updated_at: string;
}

describe('contacts: upsert, merge, lists, filters, tenancy', () => {
  useApp();

  const createdEvents = async (workspaceId: string) =>
    (await db.query(
      `SELECT type, data FROM events WHERE workspace_id = $1 AND type = 'contact.created' ORDER BY created_at`,
      [workspaceId],
    )) as Array<{ type: string; data: { contact: ContactBody } }>;

  /** POST /contacts; the spec requires first_name, so tests that do not care send a placeholder. */
  const post = async (t: TestTenant, body: Record<string, unknown>) =>
    api(app, t.token)
      .post('/contacts')
      .send({ first_name: 'Test', ...body });

  /** Creates `n` contacts one by one (distinct created_at or id order) and returns their ids. */
  const seed = async (t: TestTenant, n: number, prefix = 'p'): Promise<number[]> => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await post(t, { email: `${prefix}${i}@example.com`, first_name: `P${i}` });
      expect(res.status).toBe(200);
      ids.push(res.body.data.id);
    }
    return ids;
  };

  const listIds = async (t: TestTenant, qs: string): Promise<number[]> => {
    const res = await api(app, t.token).get(`/contacts${qs}`);
    expect(res.status).toBe(200);
    return (res.body.data as ContactBody[]).map((c) => c.id);
  };

  it('creates with 200 and the full contact view, and records contact.created once', async () => {
    const t = await createTenant(app);
    const res = await post(t, {
      email: '  Ada.Lovelace@Example.COM ',
      first_name: 'Ada',
      last_name: 'Lovelace',
      company: 'Analytical Engines',
      title: 'Countess',
      phone: '+44 20 0000 0000',
      timezone: 'europe/london',
      custom_fields: { plan: 'pro' },
    });
    expect(res.status).toBe(200);
    const c = res.body.data as ContactBody;
    expect(Object.keys(c).sort()).toEqual(
      [
        'id',
        'email',
        'first_name',
        'last_name',
        'company',
        'title',
        'phone',
        'timezone',
        'custom_fields',
        'stage',
        'sendable',
        'suppression',
        'source',
        'referred_by_contact_id',
        'verification',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(c).toMatchObject({
      email: 'ada.lovelace@example.com',
      first_name: 'Ada',
      timezone: 'Europe/London',
      custom_fields: { plan: 'pro' },
      stage: 'new',
      sendable: true,
      suppression: null,
      source: 'api',
    });
    expect(Number.isInteger(c.id) && c.id > 0).toBe(true);
    expect(new Date(c.created_at).toISOString()).toBe(c.created_at);

    const events = await createdEvents(t.workspaceId);
    expect(events).toHaveLength(1);
    expect(events[0].data.contact).toEqual(c);

    const shown = await api(app, t.token).get(`/contacts/${c.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual(c);
  });

  it('merges on a second POST with 200: same id, provided fields overwrite, absent kept, null clears, no new event', async () => {
    const t = await createTenant(app);
    const first = (
      await post(t, {
        email: 'grace@example.com',
        first_name: 'Grace',
        last_name: 'Hopper',
        company: 'Navy',
        custom_fields: { a: '1', b: '2' },
      })
    ).body.data as ContactBody;
    const res = await post(t, {
      email: 'GRACE@example.com',
      first_name: 'Amazing Grace',
      company: null,
      stage: 'interested',
      custom_fields: { b: '3', c: '4' },
    });
    expect(res.status).toBe(200);
    const merged = res.body.data as ContactBody;
    expect(merged.id).toBe(first.id);
    expect(merged).toMatchObject({
      email: 'grace@example.com',
      first_name: 'Amazing Grace',
      last_name: 'Hopper',
      company: null,
      stage: 'interested',
      custom_fields: { a: '1', b: '3', c: '4' },
      created_at: first.created_at,
    });
    expect(Date.parse(merged.updated_at)).toBeGreaterThanOrEqual(Date.parse(first.updated_at));

    // A null custom field value removes that key only.
    const removed = (await post(t, { email: 'grace@example.com', custom_fields: { a: null } })).body
      .data as ContactBody;
    expect(removed.custom_fields).toEqual({ b: '3', c: '4' });

    const events = await createdEvents(t.workspaceId);
    expect(events).toHaveLength(1);
    expect(events[0].data.contact.id).toBe(first.id);
  });

  it('requires email and first_name on POST (the spec names both), 422 naming the missing one', async () => {
    const t = await createTenant(app);
    const noName = await api(app, t.token).post('/contacts').send({ email: 'nameless@example.com' });
    expect(noName.status).toBe(422);
    expect(noName.body.error).toMatchObject({ type: 'validation_failed', field: 'first_name' });
    const nullName = await api(app, t.token)
      .post('/contacts')
      .send({ email: 'nameless@example.com', first_name: null });
    expect(nullName.status).toBe(422);
    const noEmail = await api(app, t.token).post('/contacts').send({ first_name: 'Ada' });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.error.field).toBe('email');
    expect((await api(app, t.token).get('/contacts')).body.data).toEqual([]);
  });

  it('a merge that changes nothing keeps updated_at', async () => {
    const t = await createTenant(app);
    const first = (await post(t, { email: 'same@example.com', first_name: 'Same' })).body.data as ContactBody;
    await new Promise((r) => setTimeout(r, 15));
    const again = (await post(t, { email: 'same@example.com', first_name: 'Same' })).body.data as ContactBody;
    expect(again.updated_at).toBe(first.updated_at);
    const patched = (await api(app, t.token).patch(`/contacts/${first.id}`).send({})).body
      .data as ContactBody;
    expect(patched.updated_at).toBe(first.updated_at);
  });

  it('concurrent POSTs of one new address create exactly one contact and one event', async () => {
    const t = await createTenant(app);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(t, { email: 'race@example.com', first_name: `R${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    const ids = new Set(results.map((r) => r.body.data.id as number));
    expect(ids.size).toBe(1);
    expect(await createdEvents(t.workspaceId)).toHaveLength(1);
    const [{ count }] = (await db.query(
      `SELECT count(*)::int AS count FROM contacts WHERE workspace_id = $1`,
      [t.workspaceId],
    )) as Array<{ count: number }>;
    expect(count).toBe(1);
  });

  it('enforces custom_fields limits: 50 keys, string values, also after a merge', async () => {
    const t = await createTenant(app);
    const fields = (n: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `v${i}`]));
    const tooMany = await post(t, { email: 'cf@example.com', custom_fields: fields(51, 'k') });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toMatchObject({ type: 'validation_failed', field: 'custom_fields' });
    const notString = await post(t, { email: 'cf@example.com', custom_fields: { n: 5 } });
    expect(notString.status).toBe(422);
    expect(notString.body.error.field).toBe('custom_fields');
    const notObject = await post(t, { email: 'cf@example.com', custom_fields: ['a'] });
    expect(notObject.status).toBe(422);

    const ok = await post(t, { email: 'cf@example.com', custom_fields: fields(30, 'a') });
    expect(ok.status).toBe(200);
    const overflow = await post(t, {
      email: 'cf@example.com',
      first_name: 'X',
      custom_fields: fields(21, 'b'),
    });
    expect(overflow.status).toBe(422);
    expect(overflow.body.error.field).toBe('custom_fields');
    const unchanged = (await api(app, t.token).get(`/contacts/${ok.body.data.id}`)).body.data as ContactBody;
    expect(Object.keys(unchanged.custom_fields)).toHaveLength(30);
    expect(unchanged.first_name).toBe('Test');
    // Replacing keys and removing some keeps the total within the limit.
    const swap = {
      ...fields(20, 'b'),
      ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, null])),
    };
    const swapped = await post(t, { email: 'cf@example.com', custom_fields: swap });
    expect(swapped.status).toBe(200);
    expect(Object.keys(swapped.body.data.custom_fields)).toHaveLength(40);
  });

  it('validates fields with 422 naming them', async () => {
    const t = await createTenant(app);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'email'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: 42 }, 'email'],
      [{ email: `${'a'.repeat(250)}@example.com` }, 'email'],
      [{ email: 'ok@example.com', timezone: 'Mars/Olympus' }, 'timezone'],
      [{ email: 'ok@example.com', timezone: '+01:00' }, 'timezone'],
      [{ email: 'ok@example.com', stage: 'won' }, 'stage'],
      [{ email: 'ok@example.com', stage: null }, 'stage'],
      [{ email: 'ok@example.com', first_name: 7 }, 'first_name'],
      [{ email: 'ok@example.com', first_name: 'x'.repeat(256) }, 'first_name'],
      [{ email: 'ok@example.com', company: 'a\u0000b' }, 'company'],
      [{ email: 'ok@example.com', sendable: false }, 'sendable'],
      [{ email: 'ok@example.com', source: 'import' }, 'source'],
      [{ email: 'ok@example.com', workspace_id: t.workspaceId }, 'workspace_id'],
    ];
    for (const [body, field] of cases) {
      const res = await post(t, body);
      expect({ body, status: res.status, field: res.body.error?.field }).toEqual({
        body,
        status: 422,
        field,
      });
      expect(res.body.error.type).toBe('validation_failed');
    }
    expect(await createdEvents(t.workspaceId)).toHaveLength(0);
    // Lone surrogates (valid JSON, not valid Unicode) are refused with 422 naming the field (docs/trust/README.md
    // §12), never a 500.
    const odd = await post(t, {
      email: 'odd@example.com',
      first_name: 'a\ud800b',
      custom_fields: { 'k\udc00': '\ud83d' },
    });
    expect({ status: odd.status, field: odd.body.error?.field }).toEqual({
      status: 422,
      field: 'first_name',
    });
    const tz = await post(t, { email: 'tz@example.com', timezone: 'Asia/Kolkata' });
    expect(tz.body.data.timezone).toBe('Asia/Kolkata');
    const cleared = await post(t, { email: 'tz@example.com', timezone: null });
    expect(cleared.body.data.timezone).toBeNull();
  });

  it('stores the canonical IANA name of a timezone on every write (POST, PATCH, import), and the migration canonicalises stored ones', async () => {
    const t = await createTenant(app);
    const created = await post(t, { email: 'zone@example.com', timezone: 'uS/EaStErN' });
    expect(created.body.data.timezone).toBe('America/New_York');
    const id = created.body.data.id as number;
    for (const [given, stored] of [
      ['EUROPE/paris', 'Europe/Paris'],
      ['etc/utc', 'UTC'],
      ['asia/calcutta', 'Asia/Kolkata'],
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['america/buenos_aires', 'America/Argentina/Buenos_Aires'],
    ]) {
      const res = await api(app, t.token).patch(`/contacts/${id}`).send({ timezone: given });
      expect({ given, status: res.status, stored: res.body.data?.timezone }).toEqual({
        given,
        status: 200,
        stored,
      });
    }
    const imported = await api(app, t.token)
      .post('/contacts/import')
      .send({ csv: 'email,timezone\nimp1@example.com,us/PACIFIC\nimp2@example.com,gmt\n' });
    expect(imported.status).toBe(202);
    await waitFor(async () => {
      const res = await api(app, t.token).get(`/imports/${imported.body.data.id as number}`);
      return res.body.data?.status === 'completed';
    }, 'the import');
    const rows = (await db.query(
      `SELECT email, timezone FROM contacts WHERE workspace_id = $1 AND email LIKE 'imp%' ORDER BY email`,
      [t.workspaceId],
    )) as Array<{ email: string; timezone: string }>;
    expect(rows).toEqual([
      { email: 'imp1@example.com', timezone: 'America/Los_Angeles' },
      { email: 'imp2@example.com', timezone: 'UTC' },
    ]);

    // Rows written before canonicalisation (as typed): the migration rewrites them, leaves the rest.
    const before = [
      ['old1@example.com', 'uS/EaStErN', 'America/New_York'],
      ['old2@example.com', 'america/new_york', 'America/New_York'],
      ['old3@example.com', 'Europe/Paris', 'Europe/Paris'],
      ['old4@example.com', 'Asia/Calcutta', 'Asia/Kolkata'],
      ['old5@example.com', null, null],
      ['old6@example.com', 'Not/A_Zone', 'Not/A_Zone'],
    ] as const;
    for (const [email, typed] of before) {
      await db.query(`INSERT INTO contacts (workspace_id, email, timezone) VALUES ($1, $2, $3)`, [
        t.workspaceId,
        email,
        typed,
      ]);
    }
    const runner = db.createQueryRunner();
    try {
      await new CanonicalContactTimezones1799700000000().up(runner);
    } finally {
      await runner.release();
    }
    const after = (await db.query(
      `SELECT email, timezone FROM contacts WHERE workspace_id = $1 AND email LIKE 'old%' ORDER BY email`,
      [t.workspaceId],
    )) as Array<{ email: string; timezone: string | null }>;
    expect(after).toEqual(before.map(([email, , canonical]) => ({ email, timezone: canonical })));
  });

  it('PATCH merges through the upsert, refuses another email with 422, and never fires contact.created', async () => {
    const t = await createTenant(app);
    const c = (await post(t, { email: 'lin@example.com', first_name: 'Lin', custom_fields: { x: '1' } })).body
      .data as ContactBody;
    const res = await api(app, t.token)
      .patch(`/contacts/${c.id}`)
      .send({ last_name: 'Clark', stage: 'customer', custom_fields: { y: '2' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: c.id,
      email: 'lin@example.com',
      first_name: 'Lin',
      last_name: 'Clark',
      stage: 'customer',
      custom_fields: { x: '1', y: '2' },
    });
    const sameEmail = await api(app, t.token).patch(`/contacts/${c.id}`).send({ email: ' LIN@example.com ' });
    expect(sameEmail.status).toBe(200);
    const other = await api(app, t.token).patch(`/contacts/${c.id}`).send({ email: 'other@example.com' });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ type: 'validation_failed', field: 'email' });
    const bad = await api(app, t.token).patch(`/contacts/${c.id}`).send({ stage: 'lost' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.field).toBe('stage');
    const unknown = await api(app, t.token).patch(`/contacts/${c.id}`).send({ id: 5 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.field).toBe('id');
    const after = (await api(app, t.token).get(`/contacts/${c.id}`)).body.data as ContactBody;
    expect(after.email).toBe('lin@example.com');
    expect(after.stage).toBe('customer');
    expect(await createdEvents(t.workspaceId)).toHaveLength(1);
  });

  it('shows each contact in a list exactly as GET /contacts/{id} shows it, suppressed or not', async () => {
    const t = await createTenant(app);
    await post(t, { email: 'plain@example.com', custom_fields: { plan: 'pro' }, timezone: 'Europe/Paris' });
    await post(t, { email: 'blocked@example.com' });
    await post(t, { email: 'someone@blocked-domain.example' });
    for (const entry of [{ email: 'blocked@example.com' }, { domain: 'blocked-domain.example' }]) {
      expect((await api(app, t.token).post('/suppressions').send(entry)).status).toBe(201);
    }
    // Times written straight to the row, which PostgreSQL writes back as `.89` and without a fraction.
    await app.get(DataSource).query(
      `UPDATE contacts SET created_at = '2026-03-04 05:06:07.89+00', updated_at = '2026-03-04 05:06:07+00'
          WHERE workspace_id = $1 AND email = 'plain@example.com'`,
      [t.workspaceId],
    );
    const list = (await api(app, t.token).get('/contacts')).body.data as ContactBody[];
    expect(list).toHaveLength(3);
    for (const listed of list) {
      const shown = await api(app, t.token).get(`/contacts/${listed.id}`);
      expect(listed).toEqual(shown.body.data);
    }
    const byEmail = Object.fromEntries(list.map((c) => [c.email, c]));
    expect(byEmail['plain@example.com']).toMatchObject({
      created_at: '2026-03-04T05:06:07.890Z',
      updated_at: '2026-03-04T05:06:07.000Z',
      sendable: true,
      suppression: null,
    });
    expect(byEmail['blocked@example.com'].suppression).toEqual({
      reason: 'manual',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(byEmail['someone@blocked-domain.example']).toMatchObject({ sendable: false });
  });

  it('pages 57 contacts by 10 forward to the end and back, visiting each exactly once', async () => {
    const t = await createTenant(app);
    const ids = await seed(t, 57);
    const expected = [...ids].reverse(); // newest first

    const forward: number[][] = [];
    let res = await api(app, t.token).get('/contacts?per_page=10');
    // JSON answers are written as text by ServiceExpressAdapter: the same headers as res.json().
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['ratelimit']).toMatch(/^"per-key";r=\d+;t=\d+$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body.meta.prev_cursor).toBeNull();
    expect(res.body.links.prev).toBeNull();
    for (;;) {
      expect(res.status).toBe(200);
      expect(res.body.meta.per_page).toBe(10);
      forward.push((res.body.data as ContactBody[]).map((c) => c.id));
      if (!res.body.next_cursor) break;
      expect(res.body.links.next).toContain('cursor=');
      res = await api(app, t.token).get(`/contacts?per_page=10&cursor=${res.body.next_cursor}`);
    }
    expect(forward.map((p) => p.length)).toEqual([10, 10, 10, 10, 10, 7]);
    expect(forward.flat()).toEqual(expected);
    expect(res.body.links.next).toBeNull();

    const backward: number[][] = [];
    let prev = res.body.meta.prev_cursor as string | null;
    while (prev) {
      const page = await api(app, t.token).get(`/contacts?per_page=10&cursor=${prev}`);
      expect(page.status).toBe(200);
      backward.unshift((page.body.data as ContactBody[]).map((c) => c.id));
      prev = page.body.meta.prev_cursor;
    }
    expect(backward.map((p) => p.length)).toEqual([10, 10, 10, 10, 10]);
    expect([...backward.flat(), ...forward[5]]).toEqual(expected);
    expect(new Set(backward.flat()).size).toBe(50);
  });

  it('ignores unknown query parameters: they never change a list', async () => {
    const t = await createTenant(app);
    const other = await createTenant(app);
    await seed(t, 4, 'u');
    await post(t, { email: 'won@example.com', stage: 'customer' });
    await seed(other, 2, 'o');
    const base = await listIds(t, '');
    expect(base).toHaveLength(5);
    for (const qs of [
      '?foo=bar',
      `?workspace_id=${other.workspaceId}`,
      `?organization_id=${other.organizationId}`,
      '?stage=customer',
      '?where=1%3D1&order=asc&sort=id&limit=1&offset=2&filter[stage]=customer',
      '?id=1&q=won',
    ]) {
      expect({ qs, ids: await listIds(t, qs) }).toEqual({ qs, ids: base });
    }
  });

  it('filters by status (comma lists), email, sendable and timestamps; bad values → 422 naming the filter', async () => {
    const t = await createTenant(app);
    const a = (await post(t, { email: 'a@f.example.com', stage: 'new' })).body.data as ContactBody;
    const b = (await post(t, { email: 'b@f.example.com', stage: 'replied' })).body.data as ContactBody;
    await new Promise((r) => setTimeout(r, 20));
    const c = (await post(t, { email: 'c@f.example.com', stage: 'customer' })).body.data as ContactBody;

    expect(await listIds(t, '?status=replied')).toEqual([b.id]);
    expect(await listIds(t, '?status=replied,customer')).toEqual([c.id, b.id]);
    expect(await listIds(t, '?status=new,%20customer')).toEqual([c.id, a.id]);
    expect(await listIds(t, '?email=%20B@F.example.com')).toEqual([b.id]);
    expect(await listIds(t, '?email=nobody@f.example.com')).toEqual([]);
    expect(await listIds(t, '?sendable=true')).toEqual([c.id, b.id, a.id]);
    expect(await listIds(t, '?sendable=false')).toEqual([]);
    expect(await listIds(t, `?created_after=${encodeURIComponent(b.created_at)}`)).toEqual([c.id]);
    expect(await listIds(t, `?created_before=${encodeURIComponent(c.created_at)}`)).toEqual([b.id, a.id]);
    expect(await listIds(t, '?created_after=2000-01-01&created_before=2999-12-31')).toEqual([
      c.id,
      b.id,
      a.id,
    ]);
    await new Promise((r) => setTimeout(r, 20));
    const mark = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await api(app, t.token).patch(`/contacts/${a.id}`).send({ first_name: 'Changed' });
    expect(await listIds(t, `?updated_after=${encodeURIComponent(mark)}`)).toEqual([a.id]);
    expect(await listIds(t, `?updated_after=${encodeURIComponent(mark.replace('Z', '+00:00'))}`)).toEqual([
      a.id,
    ]);

    for (const [qs, field] of [
      ['status=won', 'status'],
      ['status=', 'status'],
      ['status=new,,replied', 'status'],
      ['status=new&status=replied', 'status'],
      ['email=not-an-email', 'email'],
      ['sendable=yes', 'sendable'],
      ['sendable=1', 'sendable'],
      ['created_after=yesterday', 'created_after'],
      ['created_after=2026-02-30', 'created_after'],
      ['created_before=2026-13-01', 'created_before'],
      ['created_before=0000-01-01', 'created_before'],
      ['updated_after=2026-01-01T10:00', 'updated_after'],
      ['updated_after=2026-01-01T25:00:00Z', 'updated_after'],
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['per_page=abc', 'per_page'],
    ] as const) {
      const res = await api(app, t.token).get(`/contacts?${qs}`);
      expect({ qs, status: res.status, field: res.body.error?.field }).toEqual({ qs, status: 422, field });
    }
  });

  it('refuses a cursor from another workspace, another list, tampered or malformed with 422 cursor', async () => {
    const t = await createTenant(app);
    const other = await createTenant(app);
    await seed(t, 3, 'c');
    await seed(other, 3, 'd');
    const foreign = (await api(app, other.token).get('/contacts?per_page=1')).body.next_cursor as string;
    const own = (await api(app, t.token).get('/contacts?per_page=1')).body.next_cursor as string;
    expect(foreign).toBeTruthy();
    const [body, sig] = own.split('.');
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString()) as { i: number };
    const forged = Buffer.from(JSON.stringify({ ...decoded, i: decoded.i + 1000 })).toString('base64url');
    // A cursor minted by another list of the same workspace is refused too.
    for (const email of ['s1@example.com', 's2@example.com']) {
      await api(app, t.token).post('/suppressions').send({ email });
    }
    const otherList = (await api(app, t.token).get('/suppressions?per_page=1')).body.next_cursor as string;
    expect(otherList).toBeTruthy();
    const bad = [
      foreign,
      otherList,
      `${forged}.${sig}`,
      `${body}.${sig.slice(0, -2)}xx`,
      'garbage',
      `${own}.extra`,
      '...',
    ];
    for (const cursor of bad) {
      const res = await api(app, t.token).get(`/contacts?cursor=${encodeURIComponent(cursor)}`);
      expect({ cursor, status: res.status }).toEqual({ cursor, status: 422 });
      expect(res.body.error).toMatchObject({ type: 'validation_failed', field: 'cursor' });
    }
    expect((await api(app, t.token).get(`/contacts?cursor=${own}`)).status).toBe(200);
  });

  it('answers the same 404 for another workspace’s id, a missing id and malformed ids (show and update)', async () => {
    const t = await createTenant(app);
    const other = await createTenant(app);
    const foreign = (await post(other, { email: 'theirs@example.com' })).body.data as ContactBody;
    const ids = [String(foreign.id), '2147483647', 'abc', '0', '-1', '1'.repeat(30), '1.5', '1e3', '%20'];
    const bodies = new Set<string>();
    for (const id of ids) {
      const shown = await api(app, t.token).get(`/contacts/${id}`);
      const patched = await api(app, t.token).patch(`/contacts/${id}`).send({ first_name: 'Mine now' });
      for (const res of [shown, patched]) {
        expect({ id, status: res.status }).toEqual({ id, status: 404 });
        expect(res.headers['content-type']).toMatch(/application\/json/);
        bodies.add(JSON.stringify(res.body));
      }
    }
    expect(bodies.size).toBe(1);
    const untouched = (await api(app, other.token).get(`/contacts/${foreign.id}`)).body.data as ContactBody;
    expect(untouched.first_name).toBe('Test');
  });

  it('gates routes by scope: read-only keys cannot write, write-only keys cannot read', async () => {
    const t = await createTenant(app);
    const c = (await post(t, { email: 'scoped@example.com' })).body.data as ContactBody;
    const readOnly = await workspaceKey(app, t.workspaceId, ['contacts:read']);
    const writeOnly = await workspaceKey(app, t.workspaceId, ['contacts:write']);
    const denied = [
      await api(app, readOnly).post('/contacts').send({ email: 'new@example.com', first_name: 'N' }),
      await api(app, readOnly).patch(`/contacts/${c.id}`).send({ first_name: 'No' }),
      await api(app, writeOnly).get('/contacts'),
      await api(app, writeOnly).get(`/contacts/${c.id}`),
      await api(app, t.provisioningToken).get('/contacts'),
    ];
    for (const res of denied) {
      expect(res.status).toBe(403);
      expect(res.body.error.type).toBe('forbidden');
    }
    expect((await api(app, readOnly).get('/contacts')).status).toBe(200);
    expect(
      (await api(app, writeOnly).post('/contacts').send({ email: 'w@example.com', first_name: 'W' })).status,
    ).toBe(200);
    const count = (await api(app, readOnly).get('/contacts')).body.data.length as number;
    expect(count).toBe(2);
  });

  it('upsertContacts: set-based batch with inserted/updated/duplicate outcomes and events for inserts only', async () => {
    const t = await createTenant(app);
    const existing = (
      await post(t, { email: 'exists@example.com', first_name: 'Old', custom_fields: { k: 'v' } })
    ).body.data as ContactBody;
    const rows = [
      { email: 'New1@Example.com', first_name: 'N1' },
      { email: 'exists@example.com', last_name: 'Merged', custom_fields: { j: 'w' } },
      { email: 'new1@example.com', first_name: 'dup' },
      { email: 'new2@example.com', stage: 'customer' as const },
    ];
    const outcomes = await db.transaction((m) =>
      upsertContacts(m, t.workspaceId, rows, { source: 'import' }),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['inserted', 'updated', 'duplicate', 'inserted']);
    expect(outcomes[1].contact).toMatchObject({
      id: existing.id,
      firstName: 'Old',
      lastName: 'Merged',
      customFields: { k: 'v', j: 'w' },
      source: 'api',
    });
    expect(outcomes[2].contact.id).toBe(outcomes[0].contact.id);
    expect(outcomes[0].contact).toMatchObject({
      email: 'new1@example.com',
      firstName: 'N1',
      source: 'import',
    });
    expect(outcomes[3].contact.stage).toBe('customer');
    const events = await createdEvents(t.workspaceId);
    expect(events.map((e) => e.data.contact.email).sort()).toEqual(
      ['exists@example.com', 'new1@example.com', 'new2@example.com'].sort(),
    );

    const keep = await db.transaction((m) =>
      upsertContacts(m, t.workspaceId, [{ email: 'exists@example.com', first_name: 'Ignored' }], {
        source: 'import',
        updateExisting: false,
      }),
    );
    expect(keep[0].status).toBe('unchanged');
    expect(keep[0].contact.firstName).toBe('Old');

    await expect(validateContactRow({ email: 'bad', first_name: 'x' })).resolves.toMatchObject({
      ok: false,
      field: 'email',
    });
    await expect(validateContactRow({ email: ' A@B.example.com ', nickname: 'x' })).resolves.toMatchObject({
      ok: false,
      field: 'nickname',
    });
    await expect(validateContactRow({ email: ' A@B.example.com ', timezone: 'utc' })).resolves.toEqual({
      ok: true,
      row: { email: 'a@b.example.com', timezone: 'utc' },
    });
  });
});
