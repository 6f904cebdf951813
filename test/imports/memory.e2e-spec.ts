/**
 * docs/trust/README.md on the built service (`node dist/main.js`, APP_ROLE=api) as a real process: hostile
 * import bodies from an authenticated client are refused quickly, and the process's peak RSS growth
 * (VmHWM, reset before each request through /proc/<pid>/clear_refs) stays under 300 MB for one
 * request and 600 MB for three at once.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { ensureBuilt, startService, stopAllServices } from '../helpers/processes.js';

const MiB = 1024 * 1024;

/** kB figures of /proc/<pid>/status. */
function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

describe('import bodies on the built service: bounded memory', () => {
  let app: NestExpressApplication;
  let t: TestTenant;
  let proc: ChildProcess;
  let base = '';

  beforeAll(async () => {
    ensureBuilt();
    app = await bootApp();
    t = await createTenant(app); // default plan: import_row_cap 100,000 → a 64 MiB body limit
    const api = await startService({ role: 'api' });
    base = `${api.url}/api/v1`;
    proc = api.child;
  }, 300_000);

  afterAll(async () => {
    await stopAllServices();
    await app?.close();
  });

  /** One request on its own connection (no keep-alive race with the server's idle timeout). */
  const post = (
    body: Buffer,
    headers: Record<string, string> = { authorization: `Bearer ${t.token}` },
  ): Promise<{ status: number; json: { error?: { type: string; field?: string; message: string } } }> =>
    new Promise((resolve, reject) => {
      const req = request(
        `${base}/contacts/import`,
        {
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': body.length, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : {} });
          });
        },
      );
      // The server may answer (401, 413) and close before it has read the whole body.
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' ? undefined : reject(err)));
      req.end(body);
    });
  const auth = (extra: Record<string, string> = {}): Record<string, string> => ({
    authorization: `Bearer ${t.token}`,
    ...extra,
  });

  /** Runs `send` and answers the process's peak RSS growth over the RSS it had just before. */
  async function peakGrowth(send: () => Promise<void>): Promise<number> {
    const pid = proc.pid!;
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
    const before = status(pid, 'VmRSS');
    await send();
    return status(pid, 'VmHWM') - before;
  }

  /** `prefix` + `unit` repeated + `suffix`, `size` bytes in all. */
  function body(prefix: string, unit: string, suffix: string, size: number): Buffer {
    const n = Math.floor((size - prefix.length - suffix.length) / unit.length);
    return Buffer.concat([Buffer.from(prefix), Buffer.alloc(n * unit.length, unit), Buffer.from(suffix)]);
  }

  it('64 MiB of CSV "a\\n" rows: 422 csv at import_row_cap + 1, quickly, RSS growth < 300 MB', async () => {
    const csv = body('{"csv":"email\\n', 'a\\n', '"}', 64 * MiB - 1024);
    let res: Awaited<ReturnType<typeof post>> | undefined;
    const started = Date.now();
    const growth = await peakGrowth(async () => {
      res = await post(csv);
    });
    const ms = Date.now() - started;
    expect(res!.status).toBe(422);
    expect(res!.json.error).toMatchObject({ type: 'validation_failed', field: 'csv' });
    expect(res!.json.error!.message).toContain('more than 100000 rows');
    // ~1 s on an idle machine (read 64 MiB, parse 100,001 rows, roll back); generous for a loaded CI.
    expect(ms).toBeLessThan(60_000);
    const db = app.get(DataSource);
    const [{ n }] = await db.query('SELECT count(*)::int AS n FROM imports WHERE workspace_id = $1', [
      t.workspaceId,
    ]);
    expect(n).toBe(0); // the staged chunks were rolled back with the batch
    expect(growth).toBeLessThan(300 * MiB);
    expect(proc.exitCode).toBeNull();
  }, 120_000);

  it('64 MiB of {"contacts":[{},{},…]} (also gzip, three at once): 422 contacts, RSS growth < 300/600 MB', async () => {
    const contacts = body('{"contacts":[', '{},', '{}]}', 64 * MiB - 1024);
    let statuses: number[] = [];
    let fields: string[] = [];
    const one = await peakGrowth(async () => {
      const res = await post(contacts);
      statuses = [res.status];
      fields = [res.json.error!.field!];
    });
    expect(statuses).toEqual([422]);
    expect(fields).toEqual(['contacts']);
    expect(one).toBeLessThan(300 * MiB);

    const gz = gzipSync(contacts);
    expect(gz.length).toBeLessThan(1 * MiB);
    const three = await peakGrowth(async () => {
      const answers = await Promise.all([
        post(gz, auth({ 'content-encoding': 'gzip' })),
        post(gz, auth({ 'content-encoding': 'gzip' })),
        post(contacts),
      ]);
      statuses = answers.map((r) => r.status);
    });
    expect(statuses).toEqual([422, 422, 422]);
    expect(three).toBeLessThan(600 * MiB);
    // Over the plan-sized limit (64 MiB here): 413 once the inflated bytes pass it.
    const over = gzipSync(body('{"contacts":[', '{},', '{}]}', 64 * MiB + 4096));
    const res = await post(over, auth({ 'content-encoding': 'gzip' }));
    expect(res.status).toBe(413);
    expect(proc.exitCode).toBeNull();
  }, 180_000);

  it('the same bodies without a key: 401 before any body is read', async () => {
    const contacts = gzipSync(body('{"contacts":[', '{},', '{}]}', 64 * MiB - 1024));
    let code = 0;
    const growth = await peakGrowth(async () => {
      code = (await post(contacts, { 'content-encoding': 'gzip' })).status;
    });
    expect(code).toBe(401);
    expect(growth).toBeLessThan(50 * MiB);
  }, 60_000);
});
