import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bull';
import { importFile } from '../../src/modules/imports/commands/import-file.js';
import { RUN_IMPORT_JOB, type RunImportPayload } from '../../src/modules/imports/import-queue.js';
import { RunImportJob } from '../../src/modules/imports/jobs/run-import.job.js';
import { ImportRunner, IMPORT_CHUNK_ROWS } from '../../src/modules/imports/import-runner.js';
import type { ImportView } from '../../src/modules/imports/import.view.js';
import { ImportsService } from '../../src/modules/imports/imports.service.js';
import { api, createTenant, type TestTenant, useApp, app, db, workspaceKey } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';

describe('bulk contact imports', () => {
  useApp();

  const finished = async (t: TestTenant, id: number): Promise<ImportView> =>
    waitFor(async () => {
      const res = await api(app, t.token).get(`/imports/${id}`);
      return res.body.data?.status === 'completed' || res.body.data?.status === 'failed'
        ? (res.body.data as ImportView)
        : undefined;
    }, `import ${id} to finish`);

  const addContact = (ws: string, email: string, extra: Record<string, unknown> = {}): Promise<unknown> =>
    db.query(
      `INSERT INTO contacts (workspace_id, email, first_name, last_name, custom_fields, stage, source)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, 'api')`,
      [
        ws,
        email,
        extra.first_name ?? null,
        extra.last_name ?? null,
        JSON.stringify(extra.custom_fields ?? {}),
        extra.stage ?? 'new',
      ],
    );

  const contacts = async (ws: string): Promise<Array<Record<string, unknown>>> =>
    db.query(`SELECT * FROM contacts WHERE workspace_id = $1 ORDER BY email`, [ws]);

  const createdEvents = async (ws: string): Promise<string[]> =>
    (
      (await db.query(
        `SELECT data->'contact'->>'email' AS email FROM events
         WHERE workspace_id = $1 AND type = 'contact.created' ORDER BY 1`,
        [ws],
      )) as Array<{ email: string }>
    ).map((r) => r.email);

  it('CSV: counts add up exactly for new, existing, duplicate and invalid rows', async () => {
    const t = await createTenant(app);
    await addContact(t.workspaceId, 'old@example.com', {
      first_name: 'Old',
      last_name: 'Keep',
      custom_fields: { a: '1', b: '2' },
      stage: 'replied',
    });
    const csv = [
      'Email,First Name,last_name,timezone,plan,b',
      ' NEW1@Example.com ,Ada,Lovelace,Europe/London,pro,', // 1 new (trimmed, lower-cased)
      'old@example.com,Olga,,,gold,3', // 2 existing: first_name and custom fields merged, last_name kept
      'new1@example.com,Again,,,,', // 3 duplicate of row 1 -> skipped
      'not-an-email,X,,,,', // 4 invalid email
      'new2@example.com,Bob,,Mars/Base,,', // 5 invalid timezone
      'new3@example.com,Cy,,america/new_york,basic,', // 6 new, zone case-corrected
      'short@example.com,only-two-cells', // 7 wrong column count
      '', // blank line: not a data row
      'OLD@example.com,Dup,,,,', // 8 duplicate of row 2 -> skipped
    ].join('\n');
    const res = await api(app, t.token).post('/contacts/import').send({ csv });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      status: 'queued',
      source: 'api',
      total_rows: 8,
      processed_rows: 0,
      created_count: 0,
    });
    const done = await finished(t, res.body.data.id);
    expect(done).toMatchObject({
      status: 'completed',
      total_rows: 8,
      processed_rows: 8,
      created_count: 2,
      updated_count: 1,
      skipped_count: 2,
      error_count: 3,
      failure_reason: null,
    });
    expect(done.created_count + done.updated_count + done.skipped_count + done.error_count).toBe(8);
    expect(done.errors).toEqual([
      { row: 4, field: 'email', message: expect.any(String) },
      { row: 5, field: 'timezone', message: expect.any(String) },
      { row: 7, field: 'row', message: expect.stringContaining('columns') },
    ]);
    expect(done.started_at).not.toBeNull();
    expect(done.finished_at).not.toBeNull();
    const rows = await contacts(t.workspaceId);
    expect(rows.map((r) => r.email)).toEqual(['new1@example.com', 'new3@example.com', 'old@example.com']);
    const byEmail = Object.fromEntries(rows.map((r) => [r.email, r]));
    expect(byEmail['new1@example.com']).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      timezone: 'Europe/London',
      custom_fields: { plan: 'pro' },
      stage: 'new',
      source: 'import',
    });
    expect(byEmail['new3@example.com'].timezone).toBe('America/New_York');
    expect(byEmail['old@example.com']).toMatchObject({
      first_name: 'Olga',
      last_name: 'Keep',
      custom_fields: { a: '1', b: '3', plan: 'gold' },
      stage: 'replied',
      source: 'api',
    });
    // contact.created only for the inserted rows
    expect(await createdEvents(t.workspaceId)).toEqual(['new1@example.com', 'new3@example.com']);
    // staged rows are deleted once processed
    const [{ n }] = await db.query('SELECT count(*)::int AS n FROM import_rows WHERE import_id = $1', [
      done.id,
    ]);
    expect(n).toBe(0);
  });

  it('JSON: update_existing=false skips existing contacts; duplicates and invalid rows are counted', async () => {
    const t = await createTenant(app);
    await addContact(t.workspaceId, 'exists@example.com', { first_name: 'Keep', custom_fields: { x: '1' } });
    const res = await api(app, t.token)
      .post('/contacts/import')
      .send({
        update_existing: false,
        contacts: [
          { email: 'a@example.com', first_name: 'A', custom_fields: { k: 'v' }, stage: 'interested' },
          { email: 'EXISTS@example.com', first_name: 'Changed' },
          { email: 'a@example.com', first_name: 'Dup' },
          { email: 'b@example.com', custom_fields: { n: 5 } },
          { email: 'c@example.com', nickname: 'unknown field' },
          { first_name: 'no email' },
          'not an object',
          { email: 'd@example.com', stage: 'bogus' },
          { email: 'e@example.com', timezone: null, phone: '+1 555' },
        ],
      });
    expect(res.status).toBe(202);
    const done = await finished(t, res.body.data.id);
    expect(done).toMatchObject({
      status: 'completed',
      update_existing: false,
      total_rows: 9,
      processed_rows: 9,
      created_count: 2,
      updated_count: 0,
      skipped_count: 2,
      error_count: 5,
    });
    expect(done.errors.map((e) => [e.row, e.field])).toEqual([
      [4, 'custom_fields.n'],
      [5, 'nickname'],
      [6, 'email'],
      [7, 'row'],
      [8, 'stage'],
    ]);
    const rows = await contacts(t.workspaceId);
    const byEmail = Object.fromEntries(rows.map((r) => [r.email, r]));
    expect(Object.keys(byEmail).sort()).toEqual(['a@example.com', 'e@example.com', 'exists@example.com']);
    expect(byEmail['exists@example.com']).toMatchObject({ first_name: 'Keep', custom_fields: { x: '1' } });
    expect(byEmail['a@example.com']).toMatchObject({ first_name: 'A', stage: 'interested' });
    expect(await createdEvents(t.workspaceId)).toEqual(['a@example.com', 'e@example.com']);
  });

  it('merges custom_fields key by key and lists a merge that would pass 50 keys as a row error', async () => {
    const t = await createTenant(app);
    const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    await addContact(t.workspaceId, 'full@example.com', { custom_fields: many });
    await addContact(t.workspaceId, 'merge@example.com', { custom_fields: { keep: '1', drop: '2' } });
    const res = await api(app, t.token)
      .post('/contacts/import')
      .send({
        contacts: [
          { email: 'full@example.com', custom_fields: { x: '1', y: '2' } },
          { email: 'merge@example.com', custom_fields: { drop: null, add: '3' } },
        ],
      });
    const done = await finished(t, res.body.data.id);
    expect(done).toMatchObject({ updated_count: 1, error_count: 1, created_count: 0, skipped_count: 0 });
    expect(done.errors).toEqual([{ row: 1, field: 'custom_fields', message: expect.stringContaining('50') }]);
    const rows = await contacts(t.workspaceId);
    expect(Object.keys(rows[0].custom_fields as object)).toHaveLength(49);
    expect(rows[1].custom_fields).toEqual({ keep: '1', add: '3' });
  });

  it('stores text exactly as sent: backslashes, tabs, newlines, quotes and non-ASCII survive staging', async () => {
    const t = await createTenant(app);
    const awkward = {
      first_name: 'Back\\slash \\N \\. end',
      last_name: 'Tab\there "quoted" \'single\'',
      company: 'Line\nbreak\r\nCRLF',
      title: 'Zoë 日本 🚀 \u2028',
      custom_fields: {
        'key with space': 'tab\there value\\with\\backslashes\n',
        json: '{"a":[1,"\\u0041"]}',
      },
    };
    const res = await api(app, t.token)
      .post('/contacts/import')
      .send({ contacts: [{ email: 'odd@example.com', ...awkward }, { email: 'plain@example.com' }] });
    expect(res.status).toBe(202);
    const done = await finished(t, res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', created_count: 2, error_count: 0 });
    const [odd] = await contacts(t.workspaceId);
    expect(odd).toMatchObject(awkward);
  });

  it('refuses malformed requests with 422 naming the field, and checks scopes and tenants', async () => {
    const t = await createTenant(app, { importRowCap: 3 });
    const post = (body: unknown) =>
      api(app, t.token)
        .post('/contacts/import')
        .send(body as object);
    const expect422 = async (body: unknown, field: string): Promise<void> => {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'validation_failed', field });
    };
    await expect422({}, 'contacts');
    await expect422({ contacts: [{ email: 'a@example.com' }], csv: 'email\na@example.com' }, 'csv');
    await expect422({ contacts: 'nope' }, 'contacts');
    await expect422({ csv: 42 }, 'csv');
    await expect422({ contacts: [] }, 'contacts');
    await expect422({ csv: 'email\n' }, 'csv');
    await expect422({ csv: 'first_name\nAda' }, 'csv');
    await expect422({ csv: 'email,"unclosed\na@example.com,x' }, 'csv');
    await expect422({ csv: 'email,Email\na@example.com,b@example.com' }, 'csv');
    await expect422({ contacts: [{ email: 'a@example.com' }], update_existing: 'yes' }, 'update_existing');
    await expect422({ contacts: [{ email: 'a@example.com' }], workspace_id: t.workspaceId }, 'workspace_id');
    // over the plan's import_row_cap (3)
    const rows = ['a', 'b', 'c', 'd'].map((x) => ({ email: `${x}@example.com` }));
    await expect422({ contacts: rows }, 'contacts');
    await expect422({ csv: `email\n${rows.map((r) => r.email).join('\n')}` }, 'csv');
    expect((await post({ contacts: rows.slice(0, 3) })).status).toBe(202);
    const [{ n }] = await db.query('SELECT count(*)::int AS n FROM imports WHERE workspace_id = $1', [
      t.workspaceId,
    ]);
    expect(n).toBe(1); // refused requests leave nothing staged

    const readOnly = await workspaceKey(app, t.workspaceId, ['imports:read']);
    const denied = await api(app, readOnly)
      .post('/contacts/import')
      .send({ contacts: rows.slice(0, 1) });
    expect(denied.status).toBe(403);
    const other = await createTenant(app);
    const mine = await api(app, readOnly).get('/imports');
    expect(mine.status).toBe(200);
    expect(mine.body.data).toHaveLength(1);
    const id = mine.body.data[0].id as number;
    expect((await api(app, readOnly).get(`/imports/${id}`)).status).toBe(200);
    const foreign = await api(app, other.token).get(`/imports/${id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.type).toBe('not_found');
    expect((await api(app, other.token).get('/imports')).body.data).toHaveLength(0);
    expect((await api(app, t.token).get('/imports/abc')).status).toBe(404);
    expect((await api(app, t.token).get('/imports/99999999')).status).toBe(404);
    expect((await api(app, t.token).get('/imports?per_page=0')).status).toBe(422);
  });

  it('lists rows PostgreSQL could not store (NUL, lone surrogates) as row errors, never a 500', async () => {
    const t = await createTenant(app);
    const res = await api(app, t.token)
      .post('/contacts/import')
      .send({
        contacts: [
          { email: 'ok@example.com', first_name: 'Ok' },
          { email: 'nul@example.com', first_name: 'a\u0000b' },
          { email: 'sur@example.com', last_name: 'x\ud800y' },
          { email: 'key@example.com', custom_fields: { 'bad\u0000key': 'v' } },
          { email: 'val@example.com', custom_fields: { k: '\udc00' } },
          { email: 'unknown@example.com', ['weird\u0000' + 'k'.repeat(500)]: 'x' },
          { email: 'a@\ud800.com' },
        ],
      });
    expect(res.status).toBe(202);
    const done = await finished(t, res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', created_count: 1, error_count: 6 });
    expect(done.errors.map((e) => e.row)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(done.errors[4].field.length).toBeLessThan(130);
  });

  it('answers 413 payload_too_large beyond the 64 MB body limit of the route', async () => {
    const t = await createTenant(app);
    const res = await api(app, t.token)
      .post('/contacts/import')
      .set('Content-Type', 'application/json')
      .send(`{"csv": "email\\n${'x'.repeat(65 * 1024 * 1024)}"}`);
    expect(res.status).toBe(413);
    expect(res.body.error.type).toBe('payload_too_large');
  });

  it('sizes the body limit from the plan: import_row_cap × 1 KiB, at least 1 MiB', async () => {
    const small = await createTenant(app, { importRowCap: 10 });
    const body = `{"csv": "email\\n${'x'.repeat(1024 * 1024 + 10)}"}`;
    const res = await api(app, small.token)
      .post('/contacts/import')
      .set('Content-Type', 'application/json')
      .send(body);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toContain(String(1024 * 1024));
    const mid = await createTenant(app, { importRowCap: 2048 }); // 2 MiB
    const ok = await api(app, mid.token)
      .post('/contacts/import')
      .set('Content-Type', 'application/json')
      .send(`{"csv": "email,note\\na@example.com,${'x'.repeat(1024 * 1024 + 10)}"}`);
    expect(ok.status).toBe(422); // read in full (under 2 MiB), then refused for its record size
    expect(ok.body.error.field).toBe('csv');
  });

  it('CSV streams: a record over 64 KiB is refused naming its line; a long field is a row error', async () => {
    const t = await createTenant(app);
    const big = await api(app, t.token)
      .post('/contacts/import')
      .send({ csv: `email,note\na@example.com,ok\n\nb@example.com,"${'y'.repeat(70 * 1024)}"\n` });
    expect(big.status).toBe(422);
    expect(big.body.error).toMatchObject({ type: 'validation_failed', field: 'csv' });
    expect(big.body.error.message).toMatch(/line 4\b.*64 KiB/);
    const res = await api(app, t.token)
      .post('/contacts/import')
      .send({
        csv: `email,first_name,note\nlong@example.com,${'z'.repeat(300)},x\nfine@example.com,Fi,${'n'.repeat(2001)}\nok@example.com,Ok,y\n`,
      });
    expect(res.status).toBe(202);
    const done = await finished(t, res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', total_rows: 3, created_count: 1, error_count: 2 });
    expect(done.errors.map((e) => [e.row, e.field])).toEqual([
      [1, 'first_name'],
      [2, 'custom_fields.note'],
    ]);
    // Staging aborted half-way (the COPY was cancelled) leaves nothing behind, and the pool works on.
    const [{ n }] = await db.query('SELECT count(*)::int AS n FROM imports WHERE workspace_id = $1', [
      t.workspaceId,
    ]);
    expect(n).toBe(1);
  });

  it('paginates the import list newest first', async () => {
    const t = await createTenant(app);
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await api(app, t.token)
        .post('/contacts/import')
        .send({ contacts: [{ email: `p${i}@example.com` }] });
      ids.push(res.body.data.id as number);
    }
    const first = await api(app, t.token).get('/imports?per_page=2');
    expect(first.body.data.map((d: ImportView) => d.id)).toEqual([ids[2], ids[1]]);
    const second = await api(app, t.token).get(`/imports?per_page=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((d: ImportView) => d.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();
  });

  it('enforces max_contacts_per_workspace at request time (422) and again when the job starts', async () => {
    const t = await createTenant(app, { maxContactsPerWorkspace: 5 });
    await addContact(t.workspaceId, 'one@example.com');
    await addContact(t.workspaceId, 'two@example.com');
    // 4 new + 1 existing: 2 + 4 = 6 > 5
    const over = ['one', 'n1', 'n2', 'n3', 'n4'].map((x) => ({ email: `${x}@example.com` }));
    const refused = await api(app, t.token).post('/contacts/import').send({ contacts: over });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ type: 'validation_failed', field: 'contacts' });
    expect(refused.body.error.message).toContain('room for 3');

    // 3 new fits at request time; the workspace fills up before the job starts
    const imports = app.get(ImportsService);
    const batch = await imports.create(t.workspaceId, {
      contacts: ['one', 'n1', 'n2', 'n3'].map((x) => ({ email: `${x}@example.com` })),
    });
    expect(batch.status).toBe('queued');
    await addContact(t.workspaceId, 'late1@example.com');
    await addContact(t.workspaceId, 'late2@example.com');
    expect(await app.get(ImportRunner).run(batch.id)).toBe('failed');
    const failed = await finished(t, batch.id);
    expect(failed).toMatchObject({
      status: 'failed',
      failure_reason: 'import_cap_exceeded',
      processed_rows: 0,
      created_count: 0,
    });
    expect((await contacts(t.workspaceId)).map((r) => r.email)).not.toContain('n1@example.com');
    expect(await createdEvents(t.workspaceId)).toEqual([]);
    // running it again (a retried job) changes nothing
    expect(await app.get(ImportRunner).run(batch.id)).toBe('failed');

    // a batch that still fits completes; existing addresses do not count against the room
    const t2 = await createTenant(app, { maxContactsPerWorkspace: 3 });
    await addContact(t2.workspaceId, 'x@example.com');
    const ok = await api(app, t2.token)
      .post('/contacts/import')
      .send({ csv: 'email\nx@example.com\ny@example.com\nz@example.com\ny@example.com' });
    expect(ok.status).toBe(202);
    expect(await finished(t2, ok.body.data.id)).toMatchObject({
      status: 'completed',
      created_count: 2,
      updated_count: 1,
      skipped_count: 1,
    });
  });

  it('keeps suppressed addresses and domains unsendable, whatever is re-imported', async () => {
    const t = await createTenant(app);
    await db.query(
      `INSERT INTO suppressions (workspace_id, email, domain, reason) VALUES
         ($1, 'gone@example.com', NULL, 'unsubscribed'), ($1, NULL, 'blocked.test', 'manual'),
         ($1, 'was@example.com', NULL, 'bounced')`,
      [t.workspaceId],
    );
    await db.query(
      `INSERT INTO contacts (workspace_id, email, suppression_reason, suppressed_at)
       VALUES ($1, 'was@example.com', 'bounced', now()), ($1, 'unmarked@blocked.test', NULL, NULL)`,
      [t.workspaceId],
    );
    const res = await api(app, t.token).post('/contacts/import').send({
      csv: 'email,first_name\nGONE@example.com,G\nsomeone@blocked.test,B\nfine@example.com,F\nwas@example.com,W\nunmarked@blocked.test,U',
    });
    const done = await finished(t, res.body.data.id);
    expect(done).toMatchObject({ created_count: 3, updated_count: 2, error_count: 0 });
    const rows = await contacts(t.workspaceId);
    const reason = Object.fromEntries(rows.map((r) => [r.email, r.suppression_reason]));
    expect(reason).toEqual({
      'gone@example.com': 'unsubscribed',
      'someone@blocked.test': 'manual',
      'fine@example.com': null,
      'was@example.com': 'bounced',
      'unmarked@blocked.test': 'manual',
    });
    expect(rows.find((r) => r.email === 'was@example.com')!.first_name).toBe('W');
    expect(rows.filter((r) => r.suppression_reason !== null).every((r) => r.suppressed_at !== null)).toBe(
      true,
    );
    const events = (await db.query(
      `SELECT data->'contact' AS c FROM events WHERE workspace_id = $1 AND type = 'contact.created'`,
      [t.workspaceId],
    )) as Array<{ c: Record<string, unknown> }>;
    const gone = events.find((e) => e.c.email === 'gone@example.com')!.c;
    expect(gone).toMatchObject({
      sendable: false,
      source: 'import',
      suppression: { reason: 'unsubscribed' },
    });
    // the event carries the contact exactly as stored, timestamps as ISO 8601 UTC with milliseconds
    const goneRow = rows.find((r) => r.email === 'gone@example.com')!;
    expect(gone).toMatchObject({
      id: goneRow.id,
      first_name: 'G',
      custom_fields: {},
      stage: 'new',
      created_at: (goneRow.created_at as Date).toISOString(),
      updated_at: (goneRow.updated_at as Date).toISOString(),
    });
    expect((gone.suppression as { created_at: string }).created_at).toBe(
      (goneRow.suppressed_at as Date).toISOString(),
    );
    expect(events.find((e) => e.c.email === 'fine@example.com')!.c).toMatchObject({
      sendable: true,
      suppression: null,
    });
  });

  it('resumes from a mid-way checkpoint without duplicates or double counting', async () => {
    const t = await createTenant(app);
    const total = IMPORT_CHUNK_ROWS * 2 + 37;
    const existing = Array.from({ length: 10 }, (_, i) => `r${i * 300 + 1}@example.com`);
    for (const email of existing) await addContact(t.workspaceId, email);
    const rows = Array.from({ length: total }, (_, i) =>
      i % 97 === 5
        ? { email: `r${i - 1}@example.com` }
        : i % 101 === 7
          ? { email: 'bad' }
          : { email: `r${i}@example.com` },
    );
    const seen = new Set<string>();
    const expected = { dup: 0, bad: 0, created: 0, updated: 0 };
    for (const r of rows) {
      if (r.email === 'bad') expected.bad += 1;
      else if (seen.has(r.email)) expected.dup += 1;
      else {
        seen.add(r.email);
        if (existing.includes(r.email)) expected.updated += 1;
        else expected.created += 1;
      }
    }
    expect(expected.dup).toBeGreaterThan(10);
    expect(expected.updated).toBeGreaterThan(5);
    const imports = app.get(ImportsService);
    const runner = app.get(ImportRunner);
    const batch = await imports.create(t.workspaceId, { contacts: rows });
    expect(await runner.start(batch.id)).toBe('processing');
    const first = await runner.runChunk(batch.id);
    expect(first.progress?.processedRows).toBe(IMPORT_CHUNK_ROWS);
    // a worker dies here; another (two, even) resume from the checkpoint
    const outcomes = await Promise.all([runner.run(batch.id), runner.run(batch.id)]);
    expect(outcomes).toEqual(['completed', 'completed']);
    const done = await imports.show(t.workspaceId, batch.id);
    const valid = expected.created + expected.updated;
    expect(done).toMatchObject({
      status: 'completed',
      processed_rows: total,
      created_count: expected.created,
      updated_count: expected.updated,
      skipped_count: expected.dup,
      error_count: expected.bad,
    });
    expect(done.errors).toHaveLength(Math.min(100, expected.bad));
    const [{ n, distinct }] = await db.query(
      'SELECT count(*)::int AS n, count(DISTINCT email)::int AS distinct FROM contacts WHERE workspace_id = $1',
      [t.workspaceId],
    );
    expect(n).toBe(valid + existing.length - expected.updated);
    expect(distinct).toBe(n);
    expect((await createdEvents(t.workspaceId)).length).toBe(expected.created);
    expect(await runner.run(batch.id)).toBe('completed'); // a late duplicate job is a no-op
    expect((await imports.show(t.workspaceId, batch.id)).created_count).toBe(expected.created);
  });

  it('finds imports to recover: all unfinished at start, only long-queued ones in the sweep', async () => {
    const t = await createTenant(app);
    const imports = app.get(ImportsService);
    const batch = await imports.create(t.workspaceId, { contacts: [{ email: 'sweep@example.com' }] });
    expect((await imports.unfinished()).map((p) => p.id)).toContain(batch.id);
    expect((await imports.unfinished(60_000)).map((p) => p.id)).not.toContain(batch.id);
    await db.query(`UPDATE imports SET created_at = now() - interval '2 minutes' WHERE id = $1`, [batch.id]);
    expect(await imports.unfinished(60_000)).toContainEqual({ id: batch.id, workspaceId: t.workspaceId });
    expect(await app.get(ImportRunner).run(batch.id)).toBe('completed');
    expect((await imports.unfinished()).map((p) => p.id)).not.toContain(batch.id);
  });

  it('marks an import failed (processing_error) once its job has used every attempt', async () => {
    const t = await createTenant(app);
    const imports = app.get(ImportsService);
    const batch = await imports.create(t.workspaceId, { contacts: [{ email: 'doomed@example.com' }] });
    const job = app.get(RunImportJob);
    const fake = (attemptsMade: number) =>
      ({
        name: RUN_IMPORT_JOB,
        data: { importId: batch.id, workspaceId: t.workspaceId },
        attemptsMade,
        opts: { attempts: 5 },
      }) as unknown as Job<RunImportPayload>;
    await job.onFailed(fake(4), new Error('database unreachable'));
    expect((await imports.show(t.workspaceId, batch.id)).status).toBe('queued');
    await job.onFailed(fake(5), new Error('database unreachable'));
    expect(await imports.show(t.workspaceId, batch.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'processing_error',
    });
    expect(await app.get(ImportRunner).run(batch.id)).toBe('failed');
  });

  it('the import CLI command stages through the same service and runs the chunks inline', async () => {
    const t = await createTenant(app);
    await addContact(t.workspaceId, 'cli-old@example.com');
    const dir = mkdtempSync(join(tmpdir(), 'imports-'));
    const file = join(dir, 'contacts.csv');
    writeFileSync(file, 'email,first_name,team\ncli-new@example.com,N,red\ncli-old@example.com,O,\nbad,,\n');
    const progress: number[] = [];
    const result = await importFile(app.get(ImportsService), app.get(ImportRunner), {
      workspace: t.workspaceId,
      file,
      updateExisting: true,
      onProgress: (p) => progress.push(p.processedRows),
    });
    expect(progress).toEqual([3]);
    expect(result).toMatchObject({
      status: 'completed',
      source: 'cli',
      total_rows: 3,
      created_count: 1,
      updated_count: 1,
      error_count: 1,
    });
    await expect(
      importFile(app.get(ImportsService), app.get(ImportRunner), {
        workspace: t.workspaceId,
        file: join(dir, 'missing.csv'),
        updateExisting: true,
      }),
    ).rejects.toThrow('cannot read');
    const rows = await contacts(t.workspaceId);
    expect(rows.find((r) => r.email === 'cli-new@example.com')).toMatchObject({
      custom_fields: { team: 'red' },
      source: 'import',
    });
  });
});
