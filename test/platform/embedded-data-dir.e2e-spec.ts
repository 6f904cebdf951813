/**
 * Embedded mode touches only what it creates. The built service (`node dist/main.js` with no
 * DATABASE_URL or REDIS_URL), run as root, starts PostgreSQL as the `postgres` user under DATA_DIR:
 * - under a shared temporary folder (mode 1777, like /tmp) it starts, and that folder keeps its
 *   sticky bit and world-write (it used to be chmodded to 0755, and every folder above it too);
 * - under a folder the `postgres` user cannot enter (0700, as `mkdtemp` makes it), or in a DATA_DIR
 *   of that mode, it is refused at once: exit 1, one message naming DATA_DIR and what to do, no
 *   folder's mode changed and nothing left running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, freePort } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const modeOf = (path: string): number => statSync(path).mode & 0o7777;

/** Processes whose working directory is under `dir` (embedded PostgreSQL, redis-server). */
const runningUnder = (dir: string): string[] =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readlinkSync(`/proc/${p}/cwd`).startsWith(dir);
      } catch {
        return false;
      }
    })
    .map((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' '));

describe('embedded mode and the folders around DATA_DIR', () => {
  const children: ChildProcess[] = [];
  const made: string[] = [];
  const isRoot = process.getuid?.() === 0;

  async function run(dataDir: string): Promise<{
    child: ChildProcess;
    output: () => string;
    exit: Promise<number | string>;
  }> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      NODE_OPTIONS: '',
      LOG_LEVEL: 'info',
      IMAP_POLL_SECONDS: '3600',
    };
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'API_KEY_PEPPER',
      'ENCRYPTION_KEY',
      'RUN_MIGRATIONS',
      'PUBLIC_URL',
    ]) {
      delete env[name];
    }
    const child = spawn(process.execPath, ['dist/main.js'], {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | string>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? signal ?? 'none')),
    );
    return { child, output: () => out, exit };
  }

  const tempFolder = (mode: number): string => {
    const dir = mkdtempSync(join(tmpdir(), 'embedded-dir-'));
    chmodSync(dir, mode);
    made.push(dir);
    return dir;
  };

  beforeAll(() => ensureBuilt());
  afterAll(async () => {
    for (const c of children) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      process.kill(-c.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-c.pid!, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs as root, so PostgreSQL runs as another user (the case this file is about)', () => {
    expect(isRoot).toBe(true);
  });

  it('starts under a shared 1777 folder and leaves its mode, and the system temp folder, as they were', async () => {
    const shared = tempFolder(0o1777);
    const tmpBefore = modeOf(tmpdir());
    const dataDir = join(shared, 'data');
    const svc = await run(dataDir);
    await waitFor(
      async () => svc.output().includes('listening on') || svc.child.exitCode !== null,
      'listening on',
      120_000,
    );
    expect(svc.output()).toContain('listening on');
    expect(modeOf(shared)).toBe(0o1777);
    expect(modeOf(tmpdir())).toBe(tmpBefore);
    // What it created is its own: DATA_DIR is open to the postgres user.
    expect(modeOf(dataDir) & 0o005).toBe(0o005);
    process.kill(-svc.child.pid!, 'SIGINT');
    expect(await svc.exit).toBe(0);
    expect(runningUnder(dataDir)).toEqual([]);
  }, 150_000);

  it('refuses a DATA_DIR under a folder the postgres user cannot enter, naming DATA_DIR and the fix', async () => {
    const closed = tempFolder(0o700);
    const dataDir = join(closed, 'data');
    const svc = await run(dataDir);
    expect(await svc.exit).toBe(1);
    const out = svc.output();
    expect(out).toContain('DATA_DIR');
    expect(out).toContain(dataDir);
    expect(out).toContain(closed); // the folder in the way
    expect(out).toMatch(/chmod o\+x|another DATA_DIR|DATABASE_URL/);
    expect(out).not.toMatch(/\n\s+at /); // one message, no stack
    expect(modeOf(closed)).toBe(0o700);
    expect(runningUnder(closed)).toEqual([]);
  }, 60_000);

  it('refuses an existing DATA_DIR of mode 0700 without changing it', async () => {
    const open = tempFolder(0o755);
    const dataDir = join(open, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    chmodSync(dataDir, 0o700);
    const svc = await run(dataDir);
    expect(await svc.exit).toBe(1);
    expect(svc.output()).toContain(`DATA_DIR`);
    expect(svc.output()).toContain(dataDir);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(open)).toBe(0o755);
    expect(runningUnder(open)).toEqual([]);
  }, 60_000);
});
