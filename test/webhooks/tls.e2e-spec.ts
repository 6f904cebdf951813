/**
 * Webhooks over real TLS. Node trusts an extra CA only through NODE_EXTRA_CA_CERTS read at process
 * start, so deliveries run in spawned processes that trust the test CA in test/fixtures/tls/:
 * - the built worker (`node dist/main.js`, APP_ROLE=worker) with WEBHOOK_ALLOWED_TEST_HOSTS=localhost,
 *   delivering to node:https receivers on 127.0.0.1: a certificate for `localhost` succeeds (SNI
 *   `localhost`), one for `wrong.example` fails the attempt with error class `tls`;
 * - the delivery HTTP client of dist/ with a target pinned to 127.0.0.1 (the form checkTarget returns
 *   for a checked public host, which a loopback receiver cannot be): the connection goes to the pinned
 *   address, not to whatever the name resolves to, and the certificate is still checked against the
 *   URL's hostname.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import type { DataSource } from 'typeorm';
import { seal } from '../../src/common/crypto/crypto.js';
import { webhookSecretAt } from '../../src/common/crypto/sealed-columns.js';
import { resetConfig } from '../../src/config/app-config.js';
import { createDataSource } from '../../src/database/data-source.js';
import { runMigrations } from '../../src/database/migrate.js';
import { recordEvents } from '../helpers/domain-writes.js';
import { generateSecret } from '../../src/modules/webhooks/signing.js';
import { ensureBuilt, startWorkerProcess } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { asWorkspaceId, type WorkspaceId } from '../../src/common/tenant/workspace-id.js';

const FIXTURES = resolve('test/fixtures/tls');
const CA_FILE = join(FIXTURES, 'ca.crt');
const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));

interface Receiver {
  server: Server;
  port: number;
  /** Requests that reached the handler. */
  requests: Array<{ path: string; headers: Record<string, string | string[] | undefined>; body: string }>;
  /** Server names the clients sent (SNI); a handshake without SNI adds nothing. */
  sni: string[];
  /** Handshakes that failed on the server side (the client rejected the certificate). */
  handshakeErrors: string[];
}

async function startReceiver(certName: string): Promise<Receiver> {
  const key = fixture(`${certName}.key`);
  const cert = fixture(`${certName}.crt`);
  const context = createSecureContext({ key, cert });
  const r: Omit<Receiver, 'server' | 'port'> = { requests: [], sni: [], handshakeErrors: [] };
  const server = createServer(
    {
      key,
      cert,
      // Record the SNI of every handshake, then answer with this receiver's only certificate.
      SNICallback: (servername, cb) => {
        r.sni.push(servername);
        cb(null, context);
      },
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        r.requests.push({
          path: (req.url ?? '/').split('?')[0],
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('got it');
      });
    },
  );
  server.on('tlsClientError', (err: NodeJS.ErrnoException) => {
    r.handshakeErrors.push(err.code ?? err.message);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { ...r, server, port: (server.address() as AddressInfo).port };
}

async function stopReceiver(r: Receiver | undefined): Promise<void> {
  if (!r) return;
  r.server.closeAllConnections();
  await new Promise((ok) => r.server.close(ok));
}

interface PinnedCase {
  url: string;
  address: string;
}

interface PinnedResult {
  ok: boolean;
  statusCode: number | null;
  errorClass: string | null;
  error: string | null;
  excerpt: string | null;
}

/**
 * Runs WebhookHttpClient.post from dist/ in a fresh process that trusts the test CA, once per case,
 * each with a target pinned the way checkTarget pins a checked public host.
 */
async function postPinned(cases: PinnedCase[]): Promise<PinnedResult[]> {
  const script = `
    const { WebhookHttpClient } = await import(process.env.HTTP_MODULE);
    const client = new WebhookHttpClient(3000);
    const out = [];
    for (const c of JSON.parse(process.env.CASES)) {
      const url = new URL(c.url);
      const target = { url, hostname: url.hostname, address: c.address, family: 4, exempt: false };
      const r = await client.post(target, { 'content-type': 'application/json' }, '{"pinned":true}');
      out.push({ ok: r.ok, statusCode: r.statusCode, errorClass: r.errorClass, error: r.error, excerpt: r.excerpt });
    }
    await client.close();
    process.stdout.write(JSON.stringify(out));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      NODE_EXTRA_CA_CERTS: CA_FILE,
      HTTP_MODULE: pathToFileURL(resolve('dist/modules/webhooks/webhook-http.js')).href,
      CASES: JSON.stringify(cases),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((ok) => child.once('exit', ok));
  if (code !== 0) throw new Error(`pinned client exited (${code}): ${stderr}`);
  return JSON.parse(stdout) as PinnedResult[];
}

describe('webhooks over TLS', () => {
  let db: DataSource;
  let good: Receiver;
  let wrong: Receiver;
  let worker: ChildProcess | undefined;
  let workerOutput = (): string => '';

  const startWorker = async (): Promise<ChildProcess> => {
    const started = await startWorkerProcess({
      NODE_EXTRA_CA_CERTS: CA_FILE,
      WEBHOOK_ALLOWED_TEST_HOSTS: 'localhost',
      WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_POLL_MS: '100',
    });
    workerOutput = started.output;
    return started.child;
  };

  const addEndpoint = async (url: string): Promise<{ workspaceId: WorkspaceId; secret: string }> => {
    const workspaceId = asWorkspaceId(randomUUID());
    const secret = generateSecret();
    const [{ id }] = (await db.query(
      `INSERT INTO webhook_endpoints (workspace_id, url, events, status, secret_sealed)
       VALUES ($1, $2, ARRAY['contact'], 'enabled', '') RETURNING id`,
      [workspaceId, url],
    )) as Array<{ id: number }>;
    await db.query(`UPDATE webhook_endpoints SET secret_sealed = $2 WHERE id = $1`, [
      id,
      seal(secret, webhookSecretAt(id)),
    ]);
    return { workspaceId, secret };
  };

  const emit = async (workspaceId: WorkspaceId): Promise<string> => {
    const contactId = randomUUID();
    await db.transaction((m) =>
      recordEvents(m, [
        {
          workspaceId,
          type: 'contact.created',
          data: { contact: { id: contactId, email: 'tls@example.com' } },
        },
      ]),
    );
    const [{ id }] = (await db.query(`SELECT id FROM events WHERE workspace_id = $1`, [
      workspaceId,
    ])) as Array<{
      id: string;
    }>;
    return id;
  };

  const deliveryOf = async (workspaceId: string) => {
    const rows = (await db.query(
      `SELECT event_id, status, attempts, last_status_code, last_error, last_error_class
         FROM webhook_deliveries WHERE workspace_id = $1`,
      [workspaceId],
    )) as Array<{
      event_id: string;
      status: string;
      attempts: number;
      last_status_code: number | null;
      last_error: string | null;
      last_error_class: string | null;
    }>;
    return rows;
  };

  beforeAll(async () => {
    ensureBuilt();
    delete process.env.WEBHOOK_ALLOWED_TEST_HOSTS;
    resetConfig();
    await runMigrations();
    db = createDataSource();
    await db.initialize();
    good = await startReceiver('localhost');
    wrong = await startReceiver('wrong.example');
    worker = await startWorker();
  }, 300_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) {
      const exited = new Promise((ok) => worker!.once('exit', ok));
      worker.kill('SIGKILL');
      await exited;
    }
    await db?.destroy();
    await stopReceiver(good);
    await stopReceiver(wrong);
  });

  it('delivers a signed event over HTTPS, with SNI and the certificate checked for the URL hostname', async () => {
    const { workspaceId, secret } = await addEndpoint(`https://localhost:${good.port}/hook`);
    const eventId = await emit(workspaceId);

    const [row] = await waitFor(
      async () => {
        const rows = await deliveryOf(workspaceId);
        return rows.length === 1 && rows[0].status !== 'pending' && rows;
      },
      'the delivery to finish',
      30_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nworker output:\n${workerOutput().slice(-3000)}`);
    });
    expect(row).toMatchObject({
      event_id: eventId,
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_error_class: null,
    });

    const got = good.requests.filter((r) => r.headers['x-service-event-id'] === eventId);
    expect(got).toHaveLength(1);
    expect(got[0].path).toBe('/hook');
    expect(JSON.parse(got[0].body)).toMatchObject({
      id: eventId,
      event: 'contact.created',
      workspace_id: workspaceId,
    });
    expect(await octokitVerify(secret, got[0].body, got[0].headers['x-service-signature'] as string)).toBe(
      true,
    );
    // The client named the host in its ClientHello (SNI), and accepted a certificate valid for it.
    expect(good.sni).toContain('localhost');
    expect(good.handshakeErrors).toEqual([]);
  });

  it('fails the attempt with error class tls when the certificate is for another name, and sends nothing', async () => {
    const { workspaceId } = await addEndpoint(`https://localhost:${wrong.port}/hook`);
    await emit(workspaceId);

    const [row] = await waitFor(
      async () => {
        const rows = await deliveryOf(workspaceId);
        return rows.length === 1 && rows[0].attempts >= 1 && rows;
      },
      'a failed attempt',
      30_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nworker output:\n${workerOutput().slice(-3000)}`);
    });
    expect(row.status).not.toBe('succeeded');
    expect(row.last_error_class).toBe('tls');
    expect(row.last_status_code).toBeNull();
    // The chain is trusted (same CA as the localhost certificate); the name is what fails.
    expect(row.last_error).toBe('TLS error (ERR_TLS_CERT_ALTNAME_INVALID)');

    // The certificate (signed by the trusted CA, but for wrong.example) was rejected in the handshake,
    // after the client had sent SNI localhost; no request reached the handler.
    expect(wrong.sni).toContain('localhost');
    expect(wrong.handshakeErrors.length).toBeGreaterThanOrEqual(1);
    expect(wrong.requests).toEqual([]);
  });

  it('connects to the pinned address, not to what the name resolves to, and still verifies the hostname', async () => {
    // wrong.example (RFC 2606 reserved) does not resolve: only the pinned address can reach it.
    await expect(lookup('wrong.example')).rejects.toThrow();
    const goodBefore = good.requests.length;
    const wrongBefore = wrong.requests.length;

    const [pinnedOk, nameMismatch, otherCert, otherAddress] = await postPinned([
      // A name with no DNS answer, pinned to the receiver whose certificate is for that name: succeeds.
      { url: `https://wrong.example:${wrong.port}/pinned`, address: '127.0.0.1' },
      // The right address, but the receiver's certificate is not for the URL's hostname.
      { url: `https://localhost:${wrong.port}/pinned`, address: '127.0.0.1' },
      { url: `https://wrong.example:${good.port}/pinned`, address: '127.0.0.1' },
      // localhost resolves to 127.0.0.1, where the receiver listens; pinned to 127.0.0.2, nobody does.
      { url: `https://localhost:${good.port}/pinned`, address: '127.0.0.2' },
    ]);

    expect(pinnedOk).toMatchObject({ ok: true, statusCode: 200, errorClass: null, excerpt: 'got it' });
    const altnameInvalid = {
      ok: false,
      statusCode: null,
      errorClass: 'tls',
      error: 'TLS error (ERR_TLS_CERT_ALTNAME_INVALID)',
    };
    expect(nameMismatch).toMatchObject(altnameInvalid);
    expect(otherCert).toMatchObject(altnameInvalid);
    expect(otherAddress).toMatchObject({ ok: false, statusCode: null, errorClass: 'connection' });

    const wrongGot = wrong.requests.slice(wrongBefore);
    expect(wrongGot.map((r) => r.path)).toEqual(['/pinned']);
    expect(wrongGot[0].body).toBe('{"pinned":true}');
    expect(wrong.sni).toContain('wrong.example');
    expect(good.requests.slice(goodBefore)).toEqual([]);
  });
});
