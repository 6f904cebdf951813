/**
 * `service.json` in the data folder: where a service started on embedded defaults listens, so the
 * CLI run from the same project folder (same `DATA_DIR`, or none) prints calls to that address and
 * not to the default port. Written once the listener is up, removed on a clean stop; a file left by
 * a killed process is ignored because its pid no longer runs.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const SERVICE_FILE = 'service.json';

export function dataDirPath(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR || '.data');
}

export function writeServiceFile(dir: string, url: string): void {
  writeFileSync(join(dir, SERVICE_FILE), `${JSON.stringify({ url, pid: process.pid }, null, 2)}\n`, {
    mode: 0o644,
  });
}

export function removeServiceFile(dir: string): void {
  const file = join(dir, SERVICE_FILE);
  try {
    const { pid } = JSON.parse(readFileSync(file, 'utf8')) as { pid?: number };
    if (pid === process.pid) rmSync(file, { force: true });
  } catch {
    // none, or not ours
  }
}

const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The address of the service running on this data folder, or null when none runs. */
export function runningServiceUrl(dir: string): string | null {
  const file = join(dir, SERVICE_FILE);
  if (!existsSync(file)) return null;
  try {
    const { url, pid } = JSON.parse(readFileSync(file, 'utf8')) as { url?: unknown; pid?: unknown };
    if (typeof url !== 'string' || typeof pid !== 'number' || !running(pid)) return null;
    return url;
  } catch {
    return null;
  }
}
