/**
 * The whole run, for the file that checks what every other file did (test/openapi/traffic.e2e-spec.ts):
 * `otherFilesDone(self)` resolves once every other test file of this Jest run has finished (from
 * test/run-progress-reporter.mjs), `runTraffic()` reads the traffic every worker recorded.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTraffic, type Exchange } from './openapi-traffic.js';

/**
 * Waits, for as long as it takes, until every file of the run but `self` has finished. Without the
 * reporter's file (a run with its own --reporters) it returns at once: the sequencer's "last" is then
 * the only order there is.
 */
export async function otherFilesDone(self: string): Promise<void> {
  const dir = process.env.TEST_RUN_DIR;
  if (!dir || !existsSync(join(dir, 'progress.json'))) return;
  for (;;) {
    const { total, done } = JSON.parse(readFileSync(join(dir, 'progress.json'), 'utf8')) as {
      total: number;
      done: string[];
    };
    if (done.filter((p) => p !== self).length >= total - 1) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every exchange recorded in this run: each worker's traffic file (test/worker-env.ts). */
export function runTraffic(): Exchange[] {
  const dir = process.env.TEST_RUN_DIR;
  if (!dir) return readTraffic(process.env.OPENAPI_TRAFFIC_FILE ?? '');
  return readdirSync(dir)
    .filter((f) => /^traffic-w\d+\.jsonl$/.test(f))
    .sort()
    .flatMap((f) => readTraffic(join(dir, f)));
}
