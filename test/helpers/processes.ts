/**
 * The process fixture: the built service run as operators do (`node dist/main.js`, `node dist/cli.js`).
 * - `ensureBuilt` builds dist/ when it is older than src/; `freePort` finds a port.
 * - `useProcesses()` for files that drive such processes: dist/ built, migrations run, the file's own
 *   DataSource as `db` with the query helper, every service stopped when the file ends.
 * - `startService({ role, env })`: `node dist/main.js` in any role on a free port (or `port`), waited
 *   for until ready (unless `waitForReady: false`), tracked so that it is killed when the test file
 *   ends, also when it fails or throws.
 * - `startWorkerProcess(env)`: a worker waited for until `workers ready`, not tracked (the caller kills it).
 * - `spawnWorker(env)`: a fast-sending worker beside an in-process app, not waited for.
 * - /proc readings (peak RSS, open sockets) used to measure and target those processes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';
import { freePort } from '../../src/config/embedded.js';
import { queries } from './db.js';

export { freePort };

/** The DataSource `useProcesses()` opened for this test file (Jest gives every file its own module registry). */
export let db: DataSource;
/** Raw SQL on `db` (./db.ts). */
export const { q, all, one } = queries(() => db);

export interface ProcessFixtureOptions {
  /** Teardown of the file's own servers, run after its services stopped and before `db` closes. */
  after?: () => unknown;
}

/**
 * Builds dist/ when it is stale, runs the migrations and opens `db` in `beforeAll`; in `afterAll`
 * stops every service the file started, runs `options.after`, then closes `db`. Call it before the
 * file's own hooks.
 */
export function useProcesses(options: ProcessFixtureOptions = {}): void {
  beforeAll(async () => {
    // Imported here, not at the top: files that set APP_ROLE before importing the app import this
    // module too, and the service's modules read the role when they are first imported.
    const { createDataSource } = await import('../../src/database/data-source.js');
    const { runMigrations } = await import('../../src/database/migrate.js');
    ensureBuilt();
    await runMigrations();
    db = createDataSource();
    await db.initialize();
  }, 300_000);
  afterAll(async () => {
    await stopAllServices();
    await options.after?.();
    await db?.destroy();
  });
}

// ---------------------------------------------------------------------------------------------------
// The build, and a worker that announces itself

/**
 * Builds dist/ when it is missing or older than src/ (scripts/ensure-built.mjs, the check `npm run cli`
 * uses too). The run's global setup has already built it before any worker started, so within a run
 * this only rebuilds when src/ changed meanwhile; the script takes a lock so two workers never build at
 * once. tsc emits even when another file has a type error (`npm run check` catches those), so only a
 * missing output fails here.
 */
export function ensureBuilt(): void {
  const res = spawnSync(process.execPath, ['scripts/ensure-built.mjs'], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (!existsSync('dist/cli.js') || !existsSync('dist/main.js')) {
    throw new Error(`nest build failed:\n${res.stdout}\n${res.stderr}`);
  }
}

/** A running `node dist/main.js` and the tail of what it printed. */
export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
}

/**
 * Starts `node dist/main.js` as a worker process (APP_ROLE=worker) with `env` over this process's
 * environment and resolves once it logs `workers ready`; rejects if it exits first.
 */
export async function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...process.env, APP_ROLE: 'worker', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out = (out + d.toString()).slice(-20_000);
      if (out.includes('workers ready')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${out.slice(-2000)}`)));
  });
  return { child, output: () => out };
}

// ---------------------------------------------------------------------------------------------------
// Services tracked per test file

export type Role = 'all' | 'api' | 'worker';

export interface ServiceOptions {
  role: Role;
  /** Environment over the test process's own (DATABASE_URL, REDIS_URL, secrets from global setup). */
  env?: Record<string, string>;
  /** Value of NODE_OPTIONS for the child (the test runner's own flags are not passed on). */
  nodeOptions?: string;
  /** How long to wait for the ready line. */
  readyTimeoutMs?: number;
  /** PORT for the child (default: a free port for api/all, 0 for a worker). */
  port?: number;
  /**
   * false: resolve once spawned, without waiting for the ready line (a worker with LOG_LEVEL above
   * info never prints `workers ready`); the test then watches what the process does. Default true.
   */
  waitForReady?: boolean;
}

export interface Service {
  role: Role;
  child: ChildProcess;
  pid: number;
  /** The PORT it was given: HTTP port (api/all); 0 for a worker unless `port` was given. */
  port: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The last 40,000 characters the process printed (stdout and stderr). */
  output(): string;
  /** The last `n` lines it printed that are not info logs (warnings, errors, plain stderr). */
  problems(n?: number): string;
  alive(): boolean;
  /** Resolves when the process has exited (at once if it already has). */
  exited(): Promise<void>;
  /** Sends `signal` and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<Service>();
let exitHookInstalled = false;

/** Last resort: whatever ends the test runner, no child started here outlives it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const s of running) if (s.alive()) s.child.kill('SIGKILL');
  });
}

/**
 * Starts `node dist/main.js` with APP_ROLE=`role` (migrations off: the test file runs them first)
 * and resolves once it is ready: `listening on` for api/all, `workers ready` for a worker (at once
 * with `waitForReady: false`). Rejects with the process's output if it exits first or does not get
 * ready in time.
 */
export async function startService(options: ServiceOptions): Promise<Service> {
  installExitHook();
  const port = options.port ?? (options.role === 'worker' ? 0 : await freePort());
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: {
      ...process.env,
      NODE_OPTIONS: options.nodeOptions ?? '',
      APP_ROLE: options.role,
      PORT: String(port),
      RUN_MIGRATIONS: 'false',
      LOG_LEVEL: 'info',
      ACCESS_LOG: 'false',
      IMAP_POLL_SECONDS: '3600',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer): void => {
    out = (out + d.toString()).slice(-40_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const service: Service = {
    role: options.role,
    child,
    pid: child.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    problems: (n = 20) =>
      out
        .split('\n')
        .filter((l) => l.trim() && !/"level":(10|20|30),/.test(l))
        .slice(-n)
        .join('\n'),
    alive,
    exited: () => exit,
    kill: async (signal) => {
      if (alive()) child.kill(signal);
      await exit;
    },
    stop: async (graceMs = 10_000) => {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
  running.add(service);
  if (options.waitForReady === false) return service;
  const ready = options.role === 'worker' ? 'workers ready' : 'listening on';
  const deadline = options.readyTimeoutMs ?? 60_000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.role} process not ready after ${deadline} ms:\n${out.slice(-3000)}`));
    }, deadline);
    const check = (): void => {
      if (out.includes(ready)) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        child.stderr!.off('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`${options.role} process exited (${code ?? signal}) before ready:\n${out.slice(-3000)}`),
      );
    });
  });
  return service;
}

/** Stops every process started by startService in this test file (afterAll). */
export async function stopAllServices(): Promise<void> {
  await Promise.all([...running].map((s) => s.stop(5_000)));
  running.clear();
}

// ---------------------------------------------------------------------------------------------------
// Workers beside an in-process app (the test process serves the API; the spawned workers send)

const printedBy = new Map<ChildProcess, string[]>();

/** What a worker from `spawnWorker` printed (info logs and stderr), for failure messages. */
export const printed = (proc: ChildProcess): string => (printedBy.get(proc) ?? []).join('').slice(-4000);

/**
 * Spawns `node dist/main.js` as a worker that sends fast (50 ms tick, no gap, IMAP polled hourly), with
 * `env` over that, and returns at once (it does not wait for `workers ready`: with LOG_LEVEL=warn the
 * line is never printed). Its log level is WORKER_LOG_LEVEL, else `logLevel`; with WORKER_LOG_DIR set,
 * its output is also written to `worker-<pid>.log` there.
 */
export function spawnWorker(env: Record<string, string> = {}, logLevel = 'info'): ChildProcess {
  const proc = spawn(process.execPath, ['dist/main.js'], {
    env: {
      ...process.env,
      APP_ROLE: 'worker',
      RUN_MIGRATIONS: 'false',
      SEND_TICK_MS: '50',
      SEND_MIN_GAP_SECONDS: '0',
      ...env,
      IMAP_POLL_SECONDS: '3600',
      LOG_LEVEL: process.env.WORKER_LOG_LEVEL ?? logLevel,
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  printedBy.set(proc, lines);
  const keep = (d: Buffer): void => {
    if (process.env.WORKER_LOG_DIR) appendFileSync(`${process.env.WORKER_LOG_DIR}/worker-${proc.pid}.log`, d);
    lines.push(d.toString());
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  return proc;
}

/** Sends `signal` and waits up to 10 s for the exit, then SIGKILL. */
export async function killProcess(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill(signal);
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------------
// /proc readings (Linux)

/** Resident set size and its peak (VmHWM), in bytes. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Resets the process's peak RSS (VmHWM) to its current RSS (`echo 5 > /proc/<pid>/clear_refs`). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Socket inodes of established TCP connections whose remote port is `port` (IPv4 and IPv6). */
function connectionInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const remotePort = parseInt(f[2].split(':')[1], 16);
      if (remotePort === port && f[3] === '01') inodes.add(f[9]);
    }
  }
  return inodes;
}

/** How many established TCP connections process `pid` holds to a server on local `port`. */
export function connectionsTo(pid: number, port: number): number {
  const inodes = connectionInodes(port);
  let n = 0;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return 0;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1])) n += 1;
    } catch {
      /* closed meanwhile */
    }
  }
  return n;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
