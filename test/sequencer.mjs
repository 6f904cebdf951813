/**
 * Slowest files first, so that the two workers finish together, and the check of the whole run's
 * traffic against the API document (test/openapi/traffic.e2e-spec.ts) last.
 *
 * How long a file takes comes from Jest's cache of the last run on this machine, or, when the cache has
 * no time for it (a clean clone, as in CI), from test/timings.json: seconds per file from a serial run,
 * committed (`node test/timings.mjs <jest --json output>` rewrites it). Jest's own order would run
 * files without a time first, by size, which on a clean clone starts the long files last and leaves
 * one worker running them alone at the end.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';
import { URL } from 'node:url';

const LAST = /test\/openapi\/traffic\.e2e-spec\.ts$/;

let hints;
function hint(test) {
  if (hints === undefined) {
    try {
      hints = JSON.parse(readFileSync(new URL('./timings.json', import.meta.url), 'utf8'));
    } catch {
      hints = {};
    }
  }
  const seconds = hints[relative(test.context.config.rootDir, test.path)];
  return seconds === undefined ? undefined : seconds * 1000;
}

export default class SlowestFirstTrafficLastSequencer extends Sequencer {
  time(test) {
    return super.time(test) ?? hint(test);
  }

  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter((t) => !LAST.test(t.path)), ...sorted.filter((t) => LAST.test(t.path))];
  }
}
