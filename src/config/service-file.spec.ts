import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeServiceFile, runningServiceUrl, SERVICE_FILE, writeServiceFile } from './service-file.js';

describe('service.json', () => {
  it("names the running service's address; a file left by a process that no longer runs is ignored", () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-file-'));
    expect(runningServiceUrl(dir)).toBeNull();
    writeServiceFile(dir, 'http://localhost:4300');
    expect(runningServiceUrl(dir)).toBe('http://localhost:4300');
    // A pid that ran and ended: its file says nothing.
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(
      join(dir, SERVICE_FILE),
      JSON.stringify({ url: 'http://localhost:4400', pid: Number(ended.stdout) }),
    );
    expect(runningServiceUrl(dir)).toBeNull();
    writeFileSync(join(dir, SERVICE_FILE), 'not json');
    expect(runningServiceUrl(dir)).toBeNull();
    writeServiceFile(dir, 'http://localhost:4300');
    removeServiceFile(dir);
    expect(runningServiceUrl(dir)).toBeNull();
  });
});
