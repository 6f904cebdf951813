/**
 * Writes the run's progress to `$TEST_RUN_DIR/progress.json` — how many test files the run has and
 * which have finished (passed, failed or crashed) — so that test/openapi/traffic.e2e-spec.ts, which
 * checks the traffic every other file recorded, can wait until all of them are over: with parallel
 * workers, being started last (test/sequencer.mjs) does not mean that the others have finished.
 * Runs in Jest's parent process; the file is replaced atomically (write, then rename).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

export default class RunProgressReporter {
  total = 0;
  done = [];

  write() {
    const dir = process.env.TEST_RUN_DIR;
    if (!dir) return;
    const file = join(dir, 'progress.json');
    writeFileSync(`${file}.tmp`, JSON.stringify({ total: this.total, done: this.done }));
    renameSync(`${file}.tmp`, file);
  }

  onRunStart(results) {
    this.total = results.numTotalTestSuites;
    this.write();
  }

  onTestFileResult(test) {
    this.done.push(test.path);
    this.write();
  }
}
