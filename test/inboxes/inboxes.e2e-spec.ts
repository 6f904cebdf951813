import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Test } from 'supertest';
import { Inbox } from '../../src/modules/inboxes/entities/inbox.entity.js';
import { loadInboxTransport, verifyInboundSecret } from '../../src/modules/inboxes/inbox-credentials.js';
import { connectInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { api, createTenant, type TestTenant, useApp, app, db } from '../helpers/app.js';

const SMTP_PASSWORD = 'smtp-pa55word-CANARY-1';
const IMAP_PASSWORD = 'imap-pa55word-CANARY-2';
const SMTP_HOST = 'smtp-host-canary.internal';
const SMTP_USER = 'smtp-user-canary';
const IMAP_HOST = 'imap-host-canary.internal';
const IMAP_USER = 'imap-user-canary';

const smtp = { host: SMTP_HOST, port: 25, secure: false, user: SMTP_USER, password: null };

interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Runs the real admin CLI (`node dist/cli.js`, what `npm run cli` runs) against the test database.
 * nest-commander is CommonJS and cannot load the ESM Nest packages inside Jest, so it runs as a process.
 */
function runCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/cli.js', ...args],
      {
        env: {
          ...process.env,
          TEST_SMTP_PASSWORD: SMTP_PASSWORD,
          TEST_IMAP_PASSWORD: IMAP_PASSWORD,
          RUN_MIGRATIONS: 'false',
          NODE_OPTIONS: '',
        },
        // Generous: eight of these boot Nest side by side on a shared machine. (A run the timeout
        // kills exits 143, never the 1 a failure exits with.)
        timeout: 120_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ stdout: String(stdout), stderr: String(stderr), exitCode: code });
      },
    );
  });
}

describe('inboxes and inbox:connect', () => {
  useApp();
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    t = await createTenant(app);
    other = await createTenant(app);
    // Same step as `npm run cli`: build dist/ when it is missing or older than src/.
    execFileSync(process.execPath, ['scripts/ensure-built.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }, 240_000);

  const connectArgs = (workspace: string, email: string, extra: string[] = []): string[] => [
    'inbox:connect',
    '--workspace',
    workspace,
    '--email',
    email,
    '--smtp-host',
    SMTP_HOST,
    '--smtp-port',
    '587',
    '--smtp-user',
    SMTP_USER,
    '--smtp-password-env',
    'TEST_SMTP_PASSWORD',
    ...extra,
    '--json',
  ];
  const withImap = [
    '--imap-host',
    IMAP_HOST,
    '--imap-port',
    '993',
    '--imap-user',
    IMAP_USER,
    '--imap-password-env',
    'TEST_IMAP_PASSWORD',
    '--imap-secure',
    '--daily-limit',
    '120',
    '--display-name',
    'Sales Team',
  ];

  it('connects an inbox: one JSON object on stdout, credentials sealed, secret stored only as a hash', async () => {
    const res = await runCli(connectArgs(t.workspaceId, '  Sales@Acme-Mail.test ', withImap));
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(res.stdout.endsWith('\n')).toBe(true);
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    const out = JSON.parse(res.stdout) as { id: string; email: string; inbound_secret: string };
    expect(Object.keys(out).sort()).toEqual(['email', 'id', 'inbound_secret']);
    expect(out.email).toBe('sales@acme-mail.test');
    expect(out.inbound_secret).toMatch(/^ibs_[A-Za-z0-9_-]{43}$/);
    expect(res.stdout).not.toContain(SMTP_PASSWORD);

    const row = await db.getRepository(Inbox).findOneByOrFail({ id: out.id });
    expect(row).toMatchObject({
      workspaceId: t.workspaceId,
      domain: 'acme-mail.test',
      dailyLimit: 120,
      displayName: 'Sales Team',
      status: 'active',
      provider: 'smtp',
    });
    const stored = JSON.stringify(row);
    for (const secret of [
      SMTP_PASSWORD,
      IMAP_PASSWORD,
      SMTP_HOST,
      IMAP_HOST,
      SMTP_USER,
      IMAP_USER,
      out.inbound_secret,
    ]) {
      expect(stored).not.toContain(secret);
    }
    expect(row.smtpSealed).toMatch(/^v2\.[0-9a-f]{8}\./);
    expect(row.imapSealed).toMatch(/^v2\.[0-9a-f]{8}\./);

    const transport = await loadInboxTransport(db.manager, t.workspaceId, out.id);
    expect(transport?.smtp).toEqual({
      host: SMTP_HOST,
      port: 587,
      secure: false,
      user: SMTP_USER,
      password: SMTP_PASSWORD,
    });
    expect(transport?.imap).toEqual({
      host: IMAP_HOST,
      port: 993,
      secure: true,
      user: IMAP_USER,
      password: IMAP_PASSWORD,
    });
    expect(await loadInboxTransport(db.manager, other.workspaceId, out.id)).toBeNull();

    expect((await verifyInboundSecret(db.manager, out.id, out.inbound_secret))?.id).toBe(out.id);
    expect(await verifyInboundSecret(db.manager, out.id, `${out.inbound_secret}x`)).toBeNull();
    expect(await verifyInboundSecret(db.manager, out.id, '')).toBeNull();
    expect(await verifyInboundSecret(db.manager, randomUUID(), out.inbound_secret)).toBeNull();
    expect(await verifyInboundSecret(db.manager, 'not-a-uuid', out.inbound_secret)).toBeNull();
  });

  it('re-connecting the same address keeps the inbox, rotates the secret and re-activates it', async () => {
    const first = JSON.parse((await runCli(connectArgs(t.workspaceId, 'again@acme-mail.test'))).stdout) as {
      id: string;
      inbound_secret: string;
    };
    await db.getRepository(Inbox).update({ id: first.id }, { status: 'error', lastErrorAt: new Date() });
    const second = JSON.parse((await runCli(connectArgs(t.workspaceId, 'again@acme-mail.test'))).stdout) as {
      id: string;
      inbound_secret: string;
    };
    expect(second.id).toBe(first.id);
    expect(second.inbound_secret).not.toBe(first.inbound_secret);
    expect(await verifyInboundSecret(db.manager, first.id, first.inbound_secret)).toBeNull();
    expect((await verifyInboundSecret(db.manager, first.id, second.inbound_secret))?.id).toBe(first.id);
    expect((await db.getRepository(Inbox).findOneByOrFail({ id: first.id })).status).toBe('active');
    expect((await loadInboxTransport(db.manager, t.workspaceId, first.id))?.imap).toBeNull();
  });

  it('fails with exit code 1, one line on stderr and nothing on stdout for bad input', async () => {
    const cases: Array<[string[], RegExp]> = [
      [connectArgs(randomUUID(), 'x@acme-mail.test'), /^error: workspace [0-9a-f-]{36} not found$/m],
      [connectArgs('not-a-uuid', 'x@acme-mail.test'), /^error: --workspace must be a workspace UUID$/m],
      [connectArgs(t.workspaceId, 'not-an-email'), /email/],
      [
        ['inbox:connect', '--workspace', t.workspaceId, '--email', 'x@a.test', '--smtp-port', '25', '--json'],
        /smtp-host/,
      ],
      [connectArgs(t.workspaceId, 'x@acme-mail.test', ['--smtp-port', '70000']), /smtp-port/],
      [
        [
          'inbox:connect',
          '--workspace',
          t.workspaceId,
          '--email',
          'x@a.test',
          '--smtp-host',
          'h',
          '--smtp-port',
          '25',
          '--smtp-user',
          'u',
          '--smtp-password-env',
          'SURELY_UNSET_VAR_123',
          '--json',
        ],
        /SURELY_UNSET_VAR_123/,
      ],
      [connectArgs(t.workspaceId, 'x@acme-mail.test', ['--imap-host', 'imap.test']), /imap-port/],
      [connectArgs(t.workspaceId, 'x@acme-mail.test', ['--daily-limit', '0']), /daily limit/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    for (const [i, [args, reason]] of cases.entries()) {
      const res = results[i];
      expect({ args, exitCode: res.exitCode }).toEqual({ args, exitCode: 1 });
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(reason);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).not.toContain(SMTP_PASSWORD);
    }
    const count = await db.getRepository(Inbox).count({ where: { email: 'x@acme-mail.test' } });
    expect(count).toBe(0);
  }, 180_000);

  it('lists and shows credential-free metadata only, with no credential anywhere in the responses', async () => {
    const tenant = await createTenant(app);
    const a = JSON.parse((await runCli(connectArgs(tenant.workspaceId, 'a@box.test', withImap))).stdout) as {
      id: string;
      inbound_secret: string;
    };
    const { inbox: bRow, inboundSecret } = await connectInbox(db, {
      workspaceId: tenant.workspaceId,
      email: 'b@box.test',
      smtp: { ...smtp, password: SMTP_PASSWORD },
    });
    const b = { id: bRow.id, inbound_secret: inboundSecret };
    const rows = await db.getRepository(Inbox).findBy({ workspaceId: tenant.workspaceId });
    const forbidden = [
      SMTP_PASSWORD,
      IMAP_PASSWORD,
      SMTP_HOST,
      IMAP_HOST,
      SMTP_USER,
      IMAP_USER,
      a.inbound_secret,
      b.inbound_secret,
      ...rows.flatMap((r) => [r.smtpSealed, r.imapSealed ?? 'none', r.inboundSecretHash]),
    ];
    const list = await api(app, tenant.token).get('/inboxes');
    expect(list.status).toBe(200);
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([b.id, a.id]);
    const shown = await api(app, tenant.token).get(`/inboxes/${a.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual({
      id: a.id,
      email: 'a@box.test',
      display_name: 'Sales Team',
      provider: 'smtp',
      auth: 'password',
      transport: 'smtp',
      status: 'active',
      daily_limit: 120,
      ramp_up: null,
      effective_daily_limit: 120,
      sent_today: 0,
      domain: 'box.test',
      last_error: null,
      last_error_at: null,
      created_at: expect.any(String),
    });
    const upper = await api(app, tenant.token).get(`/inboxes/${a.id.toUpperCase()}`);
    expect(upper.body.data.id).toBe(a.id);
    for (const res of [list, shown, upper]) {
      // `auth: "password"` names how the inbox signs in, not a credential.
      const text = res.text.replaceAll('"auth":"password"', '');
      for (const secret of forbidden) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/password|secret|host|"user"|token|sealed|hash/i);
    }
  });

  it('reports sent_today for the current UTC day only', async () => {
    const tenant = await createTenant(app);
    const box = JSON.parse((await runCli(connectArgs(tenant.workspaceId, 'count@box.test'))).stdout) as {
      id: string;
    };
    const today = new Date().toISOString().slice(0, 10);
    await db.getRepository(Inbox).update({ id: box.id }, { sentToday: 7, sentTodayDate: today });
    expect((await api(app, tenant.token).get(`/inboxes/${box.id}`)).body.data.sent_today).toBe(7);
    await db.getRepository(Inbox).update({ id: box.id }, { sentTodayDate: '2000-01-01' });
    expect((await api(app, tenant.token).get(`/inboxes/${box.id}`)).body.data.sent_today).toBe(0);
  });

  it('answers the same 404 for foreign, missing and malformed inbox ids', async () => {
    const { inbox: foreign } = await connectInbox(db, {
      workspaceId: other.workspaceId,
      email: 'theirs@box.test',
      smtp,
    });
    const bodies = new Set<string>();
    for (const id of [
      foreign.id,
      randomUUID(),
      'abc',
      '0',
      '-1',
      '1'.repeat(30),
      foreign.id.replace(/-/g, ''),
    ]) {
      const res: Test = api(app, t.token).get(`/inboxes/${id}`);
      const r = await res;
      expect({ id, status: r.status }).toEqual({ id, status: 404 });
      bodies.add(JSON.stringify(r.body));
    }
    expect(bodies.size).toBe(1);
    expect((await api(app, other.token).get(`/inboxes/${foreign.id}`)).status).toBe(200);
    const { workspaceId } = t;
    expect(
      (await api(app, t.token).get('/inboxes')).body.data.some((i: { id: string }) => i.id === foreign.id),
    ).toBe(false);
    expect(workspaceId).toBeDefined();
  });
});
