import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvFileError, loadEnvFile } from './env-file.js';

describe('loadEnvFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'env-file-'));

  it('reads the named file; a variable already set wins over the file', () => {
    const file = join(dir, 'a.env');
    writeFileSync(file, 'ENVFILE_SPEC_A=from-file\nENVFILE_SPEC_B="quoted # not a comment"\n');
    const env: NodeJS.ProcessEnv = { ENV_FILE: file, ENVFILE_SPEC_A: 'from-env' };
    expect(loadEnvFile(env)).toBe(file);
    expect(env.ENVFILE_SPEC_A).toBe('from-env');
    expect(env.ENVFILE_SPEC_B).toBe('quoted # not a comment');
  });

  it('reads ./.env by default, nothing when ENV_FILE is empty, and refuses a named file that is missing', () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      writeFileSync(join(dir, '.env'), 'ENVFILE_SPEC_C=default-file\n');
      const off: NodeJS.ProcessEnv = { ENV_FILE: '' };
      expect(loadEnvFile(off)).toBeNull();
      expect(off.ENVFILE_SPEC_C).toBeUndefined();
      const env: NodeJS.ProcessEnv = {};
      expect(loadEnvFile(env)).toBe(join(dir, '.env'));
      expect(env.ENVFILE_SPEC_C).toBe('default-file');
    } finally {
      process.chdir(cwd);
    }
    expect(() => loadEnvFile({ ENV_FILE: join(dir, 'missing.env') })).toThrow(EnvFileError);
    expect(() => loadEnvFile({ ENV_FILE: join(dir, 'missing.env') })).toThrow(/no such file/);
  });

  it('without a .env and without ENV_FILE reads nothing', () => {
    const empty = mkdtempSync(join(tmpdir(), 'env-file-none-'));
    const cwd = process.cwd();
    process.chdir(empty);
    try {
      expect(loadEnvFile({})).toBeNull();
    } finally {
      process.chdir(cwd);
    }
  });
});
