/**
 * Rewrites test/timings.json (the sequencer's order on a clean clone) from a run's `jest --json`
 * output: `npm run test:jest -- --json --outputFile=/tmp/run.json && node test/timings.mjs /tmp/run.json`.
 * Seconds per file, rounded; relative order is what matters. Paths are from the repository root
 * (whatever directory the run was in).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const run = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const times = Object.fromEntries(
  run.testResults
    .map((r) => [
      r.name.replace(/^.*?\/(src|test)\//, '$1/'),
      Math.max(0.1, Math.round((r.endTime - r.startTime) / 100) / 10),
    ])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
);
writeFileSync(new URL('./timings.json', import.meta.url), `${JSON.stringify(times, null, 2)}\n`);
