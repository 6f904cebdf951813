/**
 * Fault: SIGKILL of the worker process in the middle of a CSV import posted to the API.
 *
 * Real processes: an API process and a worker process (`node dist/main.js`, APP_ROLE=api|worker)
 * on the test database and Redis. The worker is killed with SIGKILL once the import has committed
 * its first chunk; a second worker process resumes it. Proves: the checkpoint and the data agree at
 * the moment of the kill, and the finished import has exact counts (created + updated + skipped +
 * errors = rows), no duplicate contact and one contact.created event per created contact.
 */
import { createFaultTenant, jsonClient } from '../helpers/faults-http.js';
import { startService, type Service, useProcesses, db } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const ROWS = 30_000;
const EXISTING_EVERY = 25;

describe('fault: SIGKILL mid-import', () => {
  useProcesses();

  it('a second worker resumes the import: exact counts, no duplicate contacts', async () => {
    const t = await createFaultTenant(db, { maxContactsPerWorkspace: 1_000_000, importRowCap: 100_000 });
    const env = { REDIS_PREFIX: `${process.env.REDIS_PREFIX}:import-kill`, IMPORT_CHUNK_ROWS: '500' };
    // Every 25th row's address exists already (updated); every 25th row repeats the row before it
    // (skipped); every 50th row (offset 10) is not an address (error); the rest are created.
    await db.query(
      `INSERT INTO contacts (workspace_id, email, source)
       SELECT $1, 'k' || g || '@example.com', 'api' FROM generate_series(0, $2 - 1, $3) g`,
      [t.workspaceId, ROWS, EXISTING_EVERY],
    );
    const existing = Math.ceil(ROWS / EXISTING_EVERY);
    const emails: string[] = [];
    for (let i = 0; i < ROWS; i++) {
      emails.push(
        i % 25 === 24 ? `k${i - 1}@example.com` : i % 50 === 10 ? `broken-${i}` : `k${i}@example.com`,
      );
    }
    const expected = { created: 0, updated: 0, skipped: 0, errors: 0 };
    const seen = new Set<string>();
    emails.forEach((email, i) => {
      if (email.startsWith('broken')) expected.errors += 1;
      else if (seen.has(email)) expected.skipped += 1;
      else {
        seen.add(email);
        if (i % EXISTING_EVERY === 0) expected.updated += 1;
        else expected.created += 1;
      }
    });
    const csv = `email,first_name,region\n${emails.map((e, i) => `${e},F${i},r${i % 7}`).join('\n')}\n`;

    const [api, first]: Service[] = await Promise.all([
      startService({ role: 'api', env }),
      startService({ role: 'worker', env }),
    ]);
    const http = jsonClient(api.url, t.token);
    const posted = await http.post('/contacts/import', { csv });
    expect(posted.status).toBe(202);
    const id = posted.body.data.id as number;

    // Kill as soon as a chunk is committed, well before the end.
    const show = async (): Promise<Record<string, unknown>> => {
      const r = await http.get(`/imports/${id}`);
      expect(r.status).toBe(200);
      return r.body.data as Record<string, unknown>;
    };
    await waitFor(
      async () => Number((await show()).processed_rows) > 0,
      'the first worker to commit a chunk',
      90_000,
    );
    await first.kill('SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    const atKill = await show();
    expect(atKill.status).toBe('processing');
    expect(Number(atKill.processed_rows)).toBeLessThan(ROWS);
    const counted = (b: Record<string, unknown>): number =>
      Number(b.created_count) + Number(b.updated_count) + Number(b.skipped_count) + Number(b.error_count);
    // The checkpoint and the data agree exactly: nothing half-applied, nothing counted twice.
    expect(counted(atKill)).toBe(Number(atKill.processed_rows));
    const contactsNow = async (): Promise<{ contacts: number; distinct: number; events: number }> =>
      (
        (await db.query(
          `SELECT (SELECT count(*) FROM contacts WHERE workspace_id = $1)::int AS contacts,
                  (SELECT count(DISTINCT email) FROM contacts WHERE workspace_id = $1)::int AS distinct,
                  (SELECT count(*) FROM events WHERE workspace_id = $1 AND type = 'contact.created')::int AS events`,
          [t.workspaceId],
        )) as Array<{ contacts: number; distinct: number; events: number }>
      )[0];
    const partial = await contactsNow();
    expect(partial.contacts).toBe(existing + Number(atKill.created_count));
    expect(partial.events).toBe(Number(atKill.created_count));

    await startService({ role: 'worker', env });
    const done = await waitFor(
      async () => {
        const b = await show();
        return b.status === 'completed' || b.status === 'failed' ? b : undefined;
      },
      'the second worker to finish the import',
      120_000,
    );
    expect(done).toMatchObject({
      status: 'completed',
      total_rows: ROWS,
      processed_rows: ROWS,
      created_count: expected.created,
      updated_count: expected.updated,
      skipped_count: expected.skipped,
      error_count: expected.errors,
    });
    const final = await contactsNow();
    expect(final.contacts).toBe(existing + expected.created);
    expect(final.distinct).toBe(final.contacts);
    expect(final.events).toBe(expected.created);
    const [{ region }] = (await db.query(
      `SELECT count(*)::int AS region FROM contacts WHERE workspace_id = $1 AND custom_fields ? 'region'`,
      [t.workspaceId],
    )) as Array<{ region: number }>;
    expect(region).toBe(expected.created + expected.updated);
    expect(api.alive()).toBe(true);
  }, 240_000);
});
