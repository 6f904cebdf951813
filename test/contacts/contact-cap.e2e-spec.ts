/**
 * The plan's contact cap holds on every path, atomically: POST /contacts beyond
 * max_contacts_per_workspace → 403 plan_limit_exceeded, a merge (POST of an existing address, PATCH)
 * is always allowed, and concurrent creates and imports together never pass the cap. The
 * per-workspace counter the cap reads stays exact.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFile } from '../../src/modules/imports/commands/import-file.js';
import { ImportRunner } from '../../src/modules/imports/import-runner.js';
import type { ImportView } from '../../src/modules/imports/import.view.js';
import { ImportsService } from '../../src/modules/imports/imports.service.js';
import { api, createTenant, type TestTenant, useApp, app, db } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';

describe('contact cap (max_contacts_per_workspace)', () => {
  useApp();

  const counts = async (ws: string): Promise<{ rows: number; counter: number }> => {
    const [r] = (await db.query(
      `SELECT (SELECT count(*) FROM contacts WHERE workspace_id = $1)::int AS rows,
              (SELECT contacts FROM workspace_contact_counts WHERE workspace_id = $1) AS counter`,
      [ws],
    )) as Array<{ rows: number; counter: number }>;
    return r;
  };

  const finished = (t: TestTenant, id: number): Promise<ImportView> =>
    waitFor(async () => {
      const res = await api(app, t.token).get(`/imports/${id}`);
      const s = res.body.data?.status;
      return s === 'completed' || s === 'failed' ? (res.body.data as ImportView) : undefined;
    }, `import ${id} to finish`);

  it('POST /contacts: a create at the cap → 403 plan_limit_exceeded; merges (POST, PATCH) still pass', async () => {
    const t = await createTenant(app, { maxContactsPerWorkspace: 2 });
    const post = (email: string, extra: Record<string, unknown> = {}) =>
      api(app, t.token)
        .post('/contacts')
        .send({ email, first_name: 'Cap', ...extra });
    expect((await post('a@example.com')).status).toBe(200);
    const b = await post('b@example.com');
    expect(b.status).toBe(200);
    const refused = await post('c@example.com');
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('plan_limit_exceeded');
    const merged = await post('B@example.com', { first_name: 'Bee' });
    expect(merged.status).toBe(200);
    expect(merged.body.data.first_name).toBe('Bee');
    const patched = await api(app, t.token)
      .patch(`/contacts/${b.body.data.id as number}`)
      .send({ last_name: 'Merged' });
    expect(patched.status).toBe(200);
    expect(await counts(t.workspaceId)).toEqual({ rows: 2, counter: 2 });
    // The refused create wrote nothing (no contact, no contact.created event).
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'contact.created'`,
      [t.workspaceId],
    );
    expect(n).toBe(2);
    // A deleted contact frees its place (the counter follows deletes).
    await db.query(`DELETE FROM contacts WHERE workspace_id = $1 AND email = 'a@example.com'`, [
      t.workspaceId,
    ]);
    expect(await counts(t.workspaceId)).toEqual({ rows: 1, counter: 1 });
    expect((await post('c@example.com')).status).toBe(200);
    expect(await counts(t.workspaceId)).toEqual({ rows: 2, counter: 2 });
  });

  it('concurrent creates and imports racing at the cap end exactly at it, never past it', async () => {
    const cap = 40;
    const t = await createTenant(app, { maxContactsPerWorkspace: cap });
    const emails = (prefix: string, n: number): string[] =>
      Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);
    // Two imports of 15 new contacts each, and 50 creates: together 80 for a cap of 40.
    const importRequests = ['imp-a', 'imp-b'].map((p) =>
      api(app, t.token)
        .post('/contacts/import')
        .send({ contacts: emails(p, 15).map((email) => ({ email })) })
        .then((r) => r),
    );
    const creates = emails('post', 50).map((email) =>
      api(app, t.token)
        .post('/contacts')
        .send({ email, first_name: 'Race' })
        .then((r) => r.status),
    );
    const [imports, statuses] = await Promise.all([Promise.all(importRequests), Promise.all(creates)]);
    const accepted = imports.filter((r) => r.status === 202);
    for (const r of imports) expect([202, 422]).toContain(r.status);
    const views = await Promise.all(accepted.map((r) => finished(t, r.body.data.id as number)));
    for (const v of views) {
      if (v.status === 'failed') expect(v.failure_reason).toBe('import_cap_exceeded');
    }
    for (const s of statuses) expect([200, 403]).toContain(s);
    const created = statuses.filter((s) => s === 200).length;
    const imported = views.reduce((sum, v) => sum + v.created_count, 0);
    // Every refused create saw a full workspace, and the count never goes down: it ends at the cap.
    expect(statuses.filter((s) => s === 403).length).toBeGreaterThan(0);
    expect(created + imported).toBe(cap);
    expect(await counts(t.workspaceId)).toEqual({ rows: cap, counter: cap });
  }, 60_000);

  it('an import that starts when the cap has no room fails with import_cap_exceeded', async () => {
    const t = await createTenant(app, { maxContactsPerWorkspace: 3 });
    const res = await api(app, t.token)
      .post('/contacts/import')
      .send({ contacts: ['x1', 'x2', 'x3'].map((x) => ({ email: `${x}@example.com` })) });
    expect(res.status).toBe(202);
    // Fill the workspace before the job runs (or while it runs): the job must not pass the cap.
    await Promise.all(
      ['y1', 'y2', 'y3'].map((y) =>
        api(app, t.token)
          .post('/contacts')
          .send({ email: `${y}@example.com` }),
      ),
    );
    const done = await finished(t, res.body.data.id as number);
    const { rows, counter } = await counts(t.workspaceId);
    expect(rows).toBe(3);
    expect(counter).toBe(3);
    if (done.status === 'failed') expect(done.failure_reason).toBe('import_cap_exceeded');
    else expect(done.created_count).toBe(3); // the import won the race: then every create was refused
  });

  it('the CLI import holds the cap too', async () => {
    const t = await createTenant(app, { maxContactsPerWorkspace: 2 });
    const dir = mkdtempSync(join(tmpdir(), 'cap-'));
    const file = join(dir, 'c.csv');
    writeFileSync(file, 'email\ncli1@example.com\ncli2@example.com\ncli3@example.com\n');
    const run = () =>
      importFile(app.get(ImportsService), app.get(ImportRunner), {
        workspace: t.workspaceId,
        file,
        updateExisting: true,
      });
    await expect(run()).rejects.toMatchObject({ status: 422 });
    writeFileSync(file, 'email\ncli1@example.com\ncli2@example.com\n');
    expect(await run()).toMatchObject({ status: 'completed', created_count: 2 });
    writeFileSync(file, 'email\ncli1@example.com\n'); // a merge at the cap
    expect(await run()).toMatchObject({ status: 'completed', updated_count: 1 });
    expect(await counts(t.workspaceId)).toEqual({ rows: 2, counter: 2 });
  });
});
