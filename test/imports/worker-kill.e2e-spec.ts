/**
 * The built service (`node dist/main.js`, APP_ROLE=worker) is SIGKILLed mid-way through a
 * 50,000-row import; a restarted worker resumes it (recovery path) and it completes with exact
 * counts and no duplicate contacts. Also drives the built `import` CLI command.
 */
import { ImportRowsRepository } from '../../src/modules/imports/import-rows.repository.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ImportsRepository } from '../../src/modules/imports/imports.repository.js';
import { ImportsService } from '../../src/modules/imports/imports.service.js';
import { type Service, startService, useProcesses, db } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { asWorkspaceId, type WorkspaceId } from '../../src/common/tenant/workspace-id.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TOTAL = 50_000;

describe('imports survive kill -9 of the worker', () => {
  useProcesses();
  let imports: ImportsService;

  beforeAll(() => {
    imports = new ImportsService(db, new ImportsRepository(db), new ImportRowsRepository(db));
  });

  async function tenant(plan = { maxContacts: 1_000_000, rowCap: 100_000 }): Promise<WorkspaceId> {
    const [{ id: org }] = (await db.query(
      `INSERT INTO organizations (name, max_contacts_per_workspace, import_row_cap) VALUES ('Kill', $1, $2)
       RETURNING id`,
      [plan.maxContacts, plan.rowCap],
    )) as Array<{ id: string }>;
    const [{ id }] = (await db.query(
      `INSERT INTO workspaces (organization_id, name, config) VALUES ($1, 'Kill', '{}') RETURNING id`,
      [org],
    )) as Array<{ id: string }>;
    return asWorkspaceId(id);
  }

  /** A worker, not waited for (at LOG_LEVEL=warn it never prints `workers ready`): the test watches the batch. */
  function startWorker(): Promise<Service> {
    return startService({
      role: 'worker',
      waitForReady: false,
      env: {
        // Own Bull queues: only this process runs the job (the recovery path enqueues it at start).
        REDIS_PREFIX: `${process.env.REDIS_PREFIX}:kill`,
        IMPORT_CHUNK_ROWS: '500',
        LOG_LEVEL: 'warn',
      },
    });
  }

  const batchRow = async (id: number): Promise<Record<string, number | string>> =>
    (
      (await db.query('SELECT * FROM imports WHERE id = $1', [id])) as Array<Record<string, number | string>>
    )[0];

  const counts = async (ws: string): Promise<{ contacts: number; distinct: number; events: number }> =>
    (
      (await db.query(
        `SELECT (SELECT count(*) FROM contacts WHERE workspace_id = $1)::int AS contacts,
                (SELECT count(DISTINCT email) FROM contacts WHERE workspace_id = $1)::int AS distinct,
                (SELECT count(*) FROM events WHERE workspace_id = $1 AND type = 'contact.created')::int AS events`,
        [ws],
      )) as Array<{ contacts: number; distinct: number; events: number }>
    )[0];

  it('completes with exact counts and no duplicate contacts after SIGKILL mid-way', async () => {
    const ws = await tenant();
    // 2,000 existing contacts; rows: every 25th repeats the previous address, every 50th (offset) is invalid
    await db.query(
      `INSERT INTO contacts (workspace_id, email, source)
       SELECT $1, 'k' || g || '@example.com', 'api' FROM generate_series(0, 49999, 25) g`,
      [ws],
    );
    const rows = Array.from({ length: TOTAL }, (_, i) =>
      i % 25 === 24
        ? { email: `k${i - 1}@example.com` }
        : i % 50 === 10
          ? { email: `broken-${i}` }
          : { email: `k${i}@example.com`, first_name: `F${i}` },
    );
    const expected = { created: 0, updated: 0, skipped: 0, errors: 0 };
    const seen = new Set<string>();
    rows.forEach((r, i) => {
      if (r.email.startsWith('broken')) expected.errors += 1;
      else if (seen.has(r.email)) expected.skipped += 1;
      else {
        seen.add(r.email);
        if (i % 25 === 0) expected.updated += 1;
        else expected.created += 1;
      }
    });
    expect(expected.updated).toBe(2000);
    const batch = await imports.create(ws, { contacts: rows });

    const first = await startWorker();
    const midway = await waitFor(
      async () => {
        const b = await batchRow(batch.id);
        return Number(b.processed_rows) > 0 ? b : undefined;
      },
      'the first worker to commit a chunk',
      90_000,
    );
    await first.kill('SIGKILL');
    const atKill = await batchRow(batch.id);
    expect(Number(midway.processed_rows)).toBeGreaterThan(0);
    expect(atKill.status).toBe('processing');
    expect(Number(atKill.processed_rows)).toBeLessThan(TOTAL);
    // The checkpoint and the data agree exactly: nothing half-applied, nothing counted twice.
    const partial = await counts(ws);
    expect(partial.contacts).toBe(2000 + Number(atKill.created_count));
    expect(partial.events).toBe(Number(atKill.created_count));
    expect(
      Number(atKill.created_count) +
        Number(atKill.updated_count) +
        Number(atKill.skipped_count) +
        Number(atKill.error_count),
    ).toBe(Number(atKill.processed_rows));

    const second = await startWorker();
    const done = await waitFor(
      async () => {
        const b = await batchRow(batch.id);
        return b.status === 'completed' || b.status === 'failed' ? b : undefined;
      },
      'the restarted worker to finish the import',
      180_000,
    );
    await second.kill('SIGTERM');
    expect(done).toMatchObject({
      status: 'completed',
      processed_rows: TOTAL,
      created_count: expected.created,
      updated_count: expected.updated,
      skipped_count: expected.skipped,
      error_count: expected.errors,
    });
    const final = await counts(ws);
    expect(final.contacts).toBe(2000 + expected.created);
    expect(final.distinct).toBe(final.contacts);
    expect(final.events).toBe(expected.created);
    const [{ n }] = (await db.query('SELECT count(*)::int AS n FROM import_rows WHERE import_id = $1', [
      batch.id,
    ])) as Array<{ n: number }>;
    expect(n).toBe(0);
    const [{ named }] = (await db.query(
      `SELECT count(*)::int AS named FROM contacts WHERE workspace_id = $1 AND first_name IS NOT NULL`,
      [ws],
    )) as Array<{ named: number }>;
    expect(named).toBe(expected.created + expected.updated); // existing contacts were updated too
  }, 300_000);

  it('the built `import` CLI command imports a CSV inline and prints one JSON object', async () => {
    const ws = await tenant({ maxContacts: 100, rowCap: 10 });
    const dir = mkdtempSync(join(tmpdir(), 'imports-cli-'));
    const file = join(dir, 'contacts.csv');
    writeFileSync(
      file,
      'email,first_name,region\none@example.com,One,eu\ntwo@example.com,Two,\none@example.com,,\nnope,,\n',
    );
    const env = { ...process.env, RUN_MIGRATIONS: 'false' };
    const run = promisify(execFile);
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'dist/cli.js'), 'import', '--workspace', ws, '--file', file, '--json'],
      { cwd: ROOT, env },
    );
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      status: 'completed',
      source: 'cli',
      total_rows: 4,
      processed_rows: 4,
      created_count: 2,
      updated_count: 0,
      skipped_count: 1,
      error_count: 1,
      errors: [{ row: 4, field: 'email', message: expect.any(String) }],
    });
    const [{ region }] = (await db.query(
      `SELECT custom_fields->>'region' AS region FROM contacts WHERE workspace_id = $1 AND email = 'one@example.com'`,
      [ws],
    )) as Array<{ region: string }>;
    expect(region).toBe('eu');

    const big = join(dir, 'big.csv');
    writeFileSync(big, `email\n${Array.from({ length: 11 }, (_, i) => `r${i}@example.com`).join('\n')}\n`);
    const failure = await run(
      process.execPath,
      [join(ROOT, 'dist/cli.js'), 'import', '--workspace', ws, '--file', big, '--json'],
      { cwd: ROOT, env },
    ).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toBe('');
    expect(failure?.stderr.trim().split('\n')).toHaveLength(1);
    expect(failure?.stderr).toContain('import_row_cap');
  }, 120_000);
});
