/**
 * Log format and level as an operator sees them, from the built logger (dist/): JSON lines when
 * stdout is a pipe (production: containers, systemd, log shippers), readable lines when it is a
 * terminal (a pseudo-terminal from `script`), LOG_FORMAT overriding either way; LOG_LEVEL filters and
 * an unknown level is refused at start-up.
 */
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../src/config/app-config.js';
import { ensureBuilt } from '../helpers/processes.js';

const SCRIPT = `
  const { logger } = await import('./dist/common/logging/logger.js');
  logger.debug({ n: 0 }, 'hidden at info');
  logger.info({ n: 1, password: 'hunter2' }, 'hello operator');
`;

function run(env: Record<string, string>, tty: boolean): string {
  const node = [process.execPath, '--input-type=module', '-e', SCRIPT];
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'info' };
  delete childEnv.LOG_FORMAT;
  Object.assign(childEnv, env);
  const res = tty
    ? // `script` runs the command on a pseudo-terminal and copies what it printed.
      spawnSync('script', ['-qec', node.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'], {
        env: childEnv,
        encoding: 'utf8',
      })
    : spawnSync(node[0], node.slice(1), { env: childEnv, encoding: 'utf8' });
  expect(res.status).toBe(0);
  return res.stdout;
}

const lines = (out: string): string[] => out.split(/\r?\n/).filter((l) => l.trim());

describe('logs', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('are JSON lines when stdout is not a terminal, secrets redacted, below LOG_LEVEL dropped', () => {
    const out = lines(run({}, false));
    expect(out).toHaveLength(1);
    const entry = JSON.parse(out[0]) as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 30,
      msg: 'hello operator',
      n: 1,
      password: '[redacted]',
      service: 'outreach',
    });
    expect(lines(run({ LOG_LEVEL: 'debug' }, false))).toHaveLength(2);
  });

  it('are readable lines when stdout is a terminal, JSON again with LOG_FORMAT=json', () => {
    const out = lines(run({}, true));
    expect(out).toHaveLength(1); // one line per entry, fields included
    expect(() => JSON.parse(out[0]) as unknown).toThrow();
    expect(out[0]).toMatch(/INFO/);
    expect(out[0]).toContain('hello operator');
    expect(out.join('\n')).not.toContain('hunter2');
    const forced = lines(run({ LOG_FORMAT: 'json' }, true));
    expect(JSON.parse(forced[0])).toMatchObject({ msg: 'hello operator' });
    expect(lines(run({ LOG_FORMAT: 'pretty' }, false))[0]).toMatch(/INFO.*hello operator/);
  });

  it('refuses an unknown LOG_LEVEL at start-up', () => {
    const env = { ...process.env, LOG_LEVEL: 'loud' };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(/LOG_LEVEL must be one of/);
    expect(loadConfig({ ...process.env, LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
  });
});
