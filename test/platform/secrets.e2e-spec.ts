/**
 * Sealed secrets against the real database: values are bound to their row (a
 * ciphertext copied into another row is refused), and `secrets:reencrypt` (the built CLI) moves every
 * sealed value to the newest key of ENCRYPTION_KEYS, idempotently, after which the old key can go.
 */
import { execFile } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { keyId, SealError, unseal } from '../../src/common/crypto/crypto.js';
import { idempotentResponseAt, webhookSecretAt } from '../../src/common/crypto/sealed-columns.js';
import { resetConfig } from '../../src/config/app-config.js';
import { inboxSealedAt, loadInboxTransport } from '../../src/modules/inboxes/inbox-credentials.js';
import { connectInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { api, bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { ensureBuilt, startService, stopAllServices } from '../helpers/processes.js';

interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/cli.js', ...args],
      { env: { ...process.env, RUN_MIGRATIONS: 'false', NODE_OPTIONS: '', ...env }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ stdout: String(stdout), stderr: String(stderr), code });
      },
    );
  });
}

interface ReencryptOutput {
  key_id: string;
  reencrypted: Record<string, number>;
  unchanged: Record<string, number>;
  changed_meanwhile: Record<string, number>;
  failed: Record<string, number>;
  failed_rows: Array<{ column: string; row: string; reason: string }>;
}

const COLUMNS = [
  'inboxes.smtp_sealed',
  'inboxes.imap_sealed',
  'inboxes.oauth_sealed',
  'oauth_flows.code_verifier_sealed',
  'webhook_endpoints.secret_sealed',
  'idempotency_keys.response_sealed',
];

/** A value as the previous release wrote it: `v1.<iv>.<tag>.<ct>`, no associated data, no key id. */
function sealV1(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    c.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join('.');
}

describe('sealed secrets', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let t: TestTenant;
  const oldKey = Buffer.from(process.env.ENCRYPTION_KEY!, 'hex');
  const newKey = randomBytes(32);

  const smtp = (password: string) => ({
    host: 'smtp.example.test',
    port: 587,
    secure: false,
    user: 'sender',
    password,
  });

  const sealedOf = async (
    table: string,
    column: string,
    where: string,
    params: unknown[],
  ): Promise<string> => {
    const rows = (await db.query(`SELECT ${column} AS v FROM ${table} WHERE ${where}`, params)) as Array<{
      v: string;
    }>;
    return rows[0].v;
  };

  beforeAll(async () => {
    ensureBuilt();
    process.env.WEBHOOK_ALLOWED_TEST_HOSTS = '127.0.0.1';
    resetConfig();
    app = await bootApp();
    db = app.get(DataSource);
    t = await createTenant(app);
  }, 180_000);
  afterAll(async () => {
    await stopAllServices();
    await app.close();
  });

  it('refuses an inbox password copied into another inbox row (or column); reads legacy v1 values', async () => {
    const a = await connectInbox(db, {
      workspaceId: t.workspaceId,
      email: 'a@copy.test',
      smtp: smtp('password-of-a'),
      imap: { ...smtp('imap-of-a'), port: 993, secure: true },
    });
    const b = await connectInbox(db, {
      workspaceId: t.workspaceId,
      email: 'b@copy.test',
      smtp: smtp('password-of-b'),
    });
    const aSmtp = await sealedOf('inboxes', 'smtp_sealed', 'id = $1', [a.inbox.id]);
    expect(aSmtp.startsWith(`v2.${keyId(oldKey)}.`)).toBe(true);
    expect((await loadInboxTransport(db.manager, t.workspaceId, b.inbox.id))?.smtp.password).toBe(
      'password-of-b',
    );

    // An attacker with write access to the table moves A's credentials into B's row.
    await db.query('UPDATE inboxes SET smtp_sealed = $2 WHERE id = $1', [b.inbox.id, aSmtp]);
    await expect(loadInboxTransport(db.manager, t.workspaceId, b.inbox.id)).rejects.toThrow(SealError);
    await expect(loadInboxTransport(db.manager, t.workspaceId, b.inbox.id)).rejects.toThrow(
      /does not authenticate for inboxes\.smtp_sealed/,
    );
    // ... or A's SMTP settings into A's own IMAP column.
    await db.query('UPDATE inboxes SET imap_sealed = $2 WHERE id = $1', [a.inbox.id, aSmtp]);
    await expect(loadInboxTransport(db.manager, t.workspaceId, a.inbox.id)).rejects.toThrow(SealError);
    // A's row is untouched otherwise and still opens where it belongs.
    await db.query('UPDATE inboxes SET imap_sealed = NULL WHERE id = $1', [a.inbox.id]);
    expect((await loadInboxTransport(db.manager, t.workspaceId, a.inbox.id))?.smtp.password).toBe(
      'password-of-a',
    );

    // A value written by the previous release (v1, no associated data) still opens.
    await db.query('UPDATE inboxes SET smtp_sealed = $2 WHERE id = $1', [
      b.inbox.id,
      sealV1(JSON.stringify(smtp('legacy-b')), oldKey),
    ]);
    expect((await loadInboxTransport(db.manager, t.workspaceId, b.inbox.id))?.smtp.password).toBe('legacy-b');
  });

  it('binds a webhook signing secret to its endpoint (created, then rotated)', async () => {
    const create = async (): Promise<{ id: number; secret: string }> => {
      const res = await api(app, t.token)
        .post('/webhook-endpoints')
        .send({ url: 'http://127.0.0.1:9/hook', events: ['contact'] });
      expect(res.status).toBe(201);
      return res.body.data as { id: number; secret: string };
    };
    const one = await create();
    const two = await create();
    const sealedOne = await sealedOf('webhook_endpoints', 'secret_sealed', 'id = $1', [one.id]);
    expect(unseal(sealedOne, webhookSecretAt(one.id))).toBe(one.secret);
    expect(() => unseal(sealedOne, webhookSecretAt(two.id))).toThrow(SealError);
    const rotated = await api(app, t.token).post(`/webhook-endpoints/${two.id}/rotate-secret`).send({});
    expect(rotated.status).toBe(200);
    const sealedTwo = await sealedOf('webhook_endpoints', 'secret_sealed', 'id = $1', [two.id]);
    expect(unseal(sealedTwo, webhookSecretAt(two.id))).toBe(rotated.body.data.secret);
  });

  it('secrets:reencrypt moves every sealed value to the newest key, idempotently; then the old key can go', async () => {
    const c = await connectInbox(db, {
      workspaceId: t.workspaceId,
      email: 'c@rotate.test',
      smtp: smtp('smtp-of-c'),
      imap: { ...smtp('imap-of-c'), port: 993, secure: true },
    });
    const legacy = await connectInbox(db, {
      workspaceId: t.workspaceId,
      email: 'd@rotate.test',
      smtp: smtp('x'),
    });
    await db.query('UPDATE inboxes SET smtp_sealed = $2 WHERE id = $1', [
      legacy.inbox.id,
      sealV1(JSON.stringify(smtp('legacy-d')), oldKey),
    ]);
    const hook = await api(app, t.token)
      .post('/webhook-endpoints')
      .send({ url: 'http://127.0.0.1:9/rotate', events: ['contact'] });
    expect(hook.status).toBe(201);
    const endpoint = hook.body.data as { id: number; secret: string };
    const created = await api(app, t.token)
      .post('/contacts')
      .set('Idempotency-Key', 'rotate-me')
      .send({ email: 'rotate@example.com', first_name: 'Rota' });
    expect(created.status).toBe(200);

    const mine = async (): Promise<Record<string, string>> => ({
      'c.smtp': await sealedOf('inboxes', 'smtp_sealed', 'id = $1', [c.inbox.id]),
      'c.imap': await sealedOf('inboxes', 'imap_sealed', 'id = $1', [c.inbox.id]),
      'd.smtp': await sealedOf('inboxes', 'smtp_sealed', 'id = $1', [legacy.inbox.id]),
      hook: await sealedOf('webhook_endpoints', 'secret_sealed', 'id = $1', [endpoint.id]),
      idem: await sealedOf('idempotency_keys', 'response_sealed', 'tenant = $1 AND key = $2', [
        `ws:${t.workspaceId}`,
        'rotate-me',
      ]),
    });
    const before = await mine();
    expect(before['d.smtp'].startsWith('v1.')).toBe(true);
    for (const [name, v] of Object.entries(before)) {
      if (name !== 'd.smtp') expect({ name, v: v.slice(0, 12) }).toEqual({ name, v: `v2.${keyId(oldKey)}.` });
    }

    // 1. The new key is prepended; the old one still opens everything.
    const rotating = { ENCRYPTION_KEYS: `${newKey.toString('hex')},${oldKey.toString('hex')}` };
    const run = await cli(rotating, 'secrets:reencrypt', '--json');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const first = JSON.parse(run.stdout) as ReencryptOutput;
    expect(first.key_id).toBe(keyId(newKey));
    expect(Object.keys(first.reencrypted).sort()).toEqual([...COLUMNS].sort());
    expect(first.reencrypted['inboxes.smtp_sealed']).toBeGreaterThanOrEqual(4);
    expect(first.reencrypted['inboxes.imap_sealed']).toBeGreaterThanOrEqual(1);
    expect(first.reencrypted['webhook_endpoints.secret_sealed']).toBeGreaterThanOrEqual(3);
    expect(first.reencrypted['idempotency_keys.response_sealed']).toBeGreaterThanOrEqual(1);
    const myRows = [c.inbox.id, legacy.inbox.id, String(endpoint.id), `ws:${t.workspaceId} rotate-me`];
    expect(first.failed_rows.filter((f) => myRows.includes(f.row))).toEqual([]);

    const after = await mine();
    for (const [name, v] of Object.entries(after)) {
      expect({ name, v: v.slice(0, 12) }).toEqual({ name, v: `v2.${keyId(newKey)}.` });
      expect(v).not.toBe(before[name]);
    }

    // 2. Idempotent: a second run finds nothing left to do.
    const again = JSON.parse((await cli(rotating, 'secrets:reencrypt', '--json')).stdout) as ReencryptOutput;
    for (const column of COLUMNS) expect({ column, n: again.reencrypted[column] }).toEqual({ column, n: 0 });
    expect(again.unchanged['inboxes.smtp_sealed']).toBeGreaterThanOrEqual(
      first.reencrypted['inboxes.smtp_sealed'],
    );
    expect(await mine()).toEqual(after);

    // 3. The old key removed: everything opens with the new key alone ...
    const only = [newKey];
    expect(JSON.parse(unseal(after['c.smtp'], inboxSealedAt(c.inbox.id, 'smtp'), only)).password).toBe(
      'smtp-of-c',
    );
    expect(JSON.parse(unseal(after['c.imap'], inboxSealedAt(c.inbox.id, 'imap'), only)).password).toBe(
      'imap-of-c',
    );
    expect(JSON.parse(unseal(after['d.smtp'], inboxSealedAt(legacy.inbox.id, 'smtp'), only)).password).toBe(
      'legacy-d',
    );
    expect(unseal(after.hook, webhookSecretAt(endpoint.id), only)).toBe(endpoint.secret);
    const stored = JSON.parse(
      unseal(after.idem, idempotentResponseAt(`ws:${t.workspaceId}`, 'rotate-me'), only),
    );
    expect(stored.body).toEqual(created.body);
    // ... and not with the old one, which is what makes removing it a real rotation.
    await expect(loadInboxTransport(db.manager, t.workspaceId, c.inbox.id)).rejects.toThrow(/not configured/);

    // 4. The service as deployed with only the new key replays the stored response.
    // LOG_LEVEL as the test process's (silent in a Jest run): nothing here reads what it prints.
    const server = await startService({
      role: 'api',
      env: { ENCRYPTION_KEYS: newKey.toString('hex'), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
    });
    try {
      const replay = await fetch(`${server.url}/api/v1/contacts`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.token}`,
          'content-type': 'application/json',
          'idempotency-key': 'rotate-me',
        },
        body: JSON.stringify({ email: 'rotate@example.com', first_name: 'Rota' }),
      });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.json()).toEqual(created.body);
    } finally {
      await server.kill('SIGKILL');
    }
  }, 240_000);

  it('prints a readable summary without --json, and reports a current-key value moved to another row', async () => {
    const endpoints = (await db.query(
      'SELECT id, secret_sealed FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY id LIMIT 2',
      [t.workspaceId],
    )) as Array<{ id: number; secret_sealed: string }>;
    await db.query('UPDATE webhook_endpoints SET secret_sealed = $2 WHERE id = $1', [
      endpoints[1].id,
      endpoints[0].secret_sealed,
    ]);
    const res = await cli(
      { ENCRYPTION_KEYS: `${newKey.toString('hex')},${oldKey.toString('hex')}` },
      'secrets:reencrypt',
    );
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`newest key: ${keyId(newKey)}`);
    expect(res.stdout).toMatch(/inboxes\.smtp_sealed: 0 re-encrypted, \d+ already current/);
    expect(res.stdout).toContain(
      `failed: webhook_endpoints.secret_sealed row ${endpoints[1].id}: sealed value does not authenticate`,
    );
    expect(res.stdout).not.toContain(`webhook_endpoints.secret_sealed row ${endpoints[0].id}:`);
    expect(res.stdout).not.toContain(newKey.toString('hex'));
    expect(res.stdout).not.toContain(oldKey.toString('hex'));
  }, 120_000);
});
