/**
 * The TypeScript SDK (sdk/typescript) against the real service over HTTP: its committed schema is
 * what openapi.json generates, the quickstart example runs end to end (the first step reaches the
 * SMTP server), errors surface as ApiError with the envelope's type, and the cursor iterators visit
 * every row once.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import { connectInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { quickstart } from '../../sdk/typescript/examples/quickstart.js';
import { ApiError, createClient, items, pages, unwrap } from '../../sdk/typescript/src/index.js';
import { app, createTenant, useApp, type TestTenant } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { waitFor } from '../helpers/wait.js';

describe('TypeScript SDK', () => {
  useApp({ env: { SEND_TICK_MS: '50', SEND_MIN_GAP_SECONDS: '0' } });
  let sink: SmtpSink;
  let baseUrl: string;
  let t: TestTenant;
  let inboxId: string;

  beforeAll(async () => {
    sink = await startSmtpSink();
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    t = await createTenant(app);
    ({
      inbox: { id: inboxId },
    } = await connectInbox(app.get(DataSource), {
      workspaceId: t.workspaceId,
      email: 'hello@sdk.test',
      displayName: 'SDK Sender',
      smtp: { host: '127.0.0.1', port: sink.port, secure: false, user: null, password: null },
    }));
  });

  afterAll(async () => {
    await sink.close();
    delete process.env.SEND_TICK_MS;
    delete process.env.SEND_MIN_GAP_SECONDS;
    resetConfig();
  });

  it('is generated from the committed openapi.json (npm run sdk:generate leaves it unchanged)', () => {
    const run = spawnSync('npm', ['run', 'sdk:generate', '--', '--check'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(run.stderr).not.toContain('not up-to-date');
    expect(run.status).toBe(0);
  });

  it('runs the quickstart: contacts, a published sequence, an active campaign, enrollments, lists, an error', async () => {
    const lines: string[] = [];
    const r = await quickstart({ baseUrl, token: t.token, log: (line) => lines.push(line) });

    expect(r.workspaceId).toBe(t.workspaceId);
    expect(r.inboxId).toBe(inboxId);
    expect(r.contacts.map((c) => c.email)).toEqual([
      'ada@example.com',
      'grace@example.com',
      'alan@example.com',
      'katherine@example.com',
      'edsger@example.com',
    ]);
    for (const c of r.contacts) expect(Number.isSafeInteger(c.id) && c.id > 0).toBe(true);
    expect(new Set(r.contacts.map((c) => c.id)).size).toBe(5);
    // The same Idempotency-Key sent again: the stored answer, marked as replayed.
    expect(r.replay).toEqual({ contactId: r.contacts[0]!.id, replayed: true });
    expect(r.sequenceId).toBeGreaterThan(0);
    expect(r.campaignId).toBeGreaterThan(0);
    expect(r.campaignStatus).toBe('active');
    expect(r.enrollmentIds).toHaveLength(5);
    expect(r.listedByEmail.map((c) => c.id)).toEqual([r.contacts[0]!.id]);
    // Five enrollments, two to a page: three pages, each enrollment once.
    expect(r.enrollmentPages).toBe(3);
    expect([...r.pagedEnrollmentIds].sort((a, b) => a - b)).toEqual(
      [...r.enrollmentIds].sort((a, b) => a - b),
    );
    expect(r.refused).toMatchObject({ status: 422, type: 'validation_failed', field: 'email' });
    expect(lines.join('\n')).toContain(`campaign ${r.campaignId} active`);

    // The first step goes out to each contact, and its thread is listed through the SDK.
    const client = createClient({ baseUrl, token: t.token });
    await waitFor(async () => sink.received.length >= 5, 'five first steps at the SMTP server');
    expect(sink.received.map((m) => m.to[0]).sort()).toEqual(r.contacts.map((c) => c.email).sort());
    expect(sink.received.find((m) => m.to[0] === 'ada@example.com')!.parsed.subject).toBe(
      'Quick question, Ada',
    );
    const threads = await unwrap(
      client.GET('/api/v1/threads', { params: { query: { campaign_id: r.campaignId } } }),
    );
    expect(threads.data).toHaveLength(5);
  });

  it('iterates every row of a list exactly once, over pages of any size, with filters and path params', async () => {
    const tenant = await createTenant(app);
    const client = createClient({ baseUrl, token: tenant.token });
    const created: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const res = await unwrap(
        client.POST('/api/v1/contacts', {
          body: { email: `row${i}@paging.test`, first_name: `Row ${i}`, stage: i % 2 ? 'contacted' : 'new' },
        }),
      );
      created.push(res.data.id);
    }
    for (const perPage of [1, 3, 7, 100]) {
      const seen: number[] = [];
      for await (const contact of items(client, '/api/v1/contacts', { query: { per_page: perPage } })) {
        seen.push(contact.id);
      }
      // Newest first, each once.
      expect(seen).toEqual([...created].reverse());
    }
    const sizes: number[] = [];
    for await (const page of pages(client, '/api/v1/contacts', { query: { per_page: 3, status: 'new' } })) {
      sizes.push(page.data.length);
      expect(page.meta.per_page).toBe(3);
    }
    expect(sizes).toEqual([3, 1]);
    // A list under a path parameter: an unknown thread is a 404, raised from the iterator.
    const thread = items(client, '/api/v1/threads/{thread}/messages', { path: { thread: 999_999 } });
    await expect(thread.next()).rejects.toMatchObject({ status: 404, type: 'not_found' });
  });

  it('builds, and the compiled example runs under plain Node as `npm run sdk:example` does', async () => {
    // -s: npm's own script banner off, so only the build's output is left to be empty.
    const build = spawnSync('npm', ['run', '-s', 'sdk:build'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(build.stdout + build.stderr).toBe('');
    expect(build.status).toBe(0);
    const tenant = await createTenant(app);
    await connectInbox(app.get(DataSource), {
      workspaceId: tenant.workspaceId,
      email: 'hello@sdk-example.test',
      smtp: { host: '127.0.0.1', port: sink.port, secure: false, user: null, password: null },
    });
    // Asynchronous: the service answering the example runs in this process. No OUTREACH_URL and
    // no PUBLIC_URL: the example finds the service on localhost:$PORT, as the service itself says.
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', OUTREACH_KEY: tenant.token };
    delete env.OUTREACH_URL;
    delete env.PUBLIC_URL;
    env.PORT = new URL(baseUrl).port;
    const child = spawn(process.execPath, ['sdk/typescript/dist/examples/quickstart.js'], { env });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(out).toMatch(/^campaign \d+ active$/m);
    expect(out).toContain('listed 5 enrollments in 3 pages');
    expect(out).toContain('refused: 422 validation_failed (email)');
    expect(code).toBe(0);
  });

  it('without a service at the address, says in one line which address it tried and what sets it', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', OUTREACH_KEY: 'svc_sk_x' };
    delete env.PUBLIC_URL;
    env.OUTREACH_URL = 'http://127.0.0.1:9';
    const child = spawn(process.execPath, ['sdk/typescript/dist/examples/quickstart.js'], { env });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(out.trim()).toBe(
      'cannot reach the service at http://127.0.0.1:9: is it running? Set OUTREACH_URL to its address (or PORT to its port).',
    );
  });

  it('raises ApiError with the envelope: status, type, field, message, request id', async () => {
    const client = createClient({ baseUrl, token: t.token, headers: { 'X-Request-Id': 'sdk-test-1' } });
    const err = await unwrap(
      client.POST('/api/v1/sequences', { body: { name: 'Bad', steps: [{ position: 1 } as never] } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 422, type: 'validation_failed', requestId: 'sdk-test-1' });
    expect((err as ApiError).field).toMatch(/^steps\.0\./);

    const wrongKey = createClient({ baseUrl, token: 'svc_sk_not-a-real-key' });
    await expect(unwrap(wrongKey.GET('/api/v1/me'))).rejects.toMatchObject({
      name: 'ApiError',
      status: 401,
      type: 'authentication_failed',
    });

    // A provisioning key on a workspace route: the scope/tier error keeps its own type.
    const provisioning = createClient({ baseUrl, token: t.provisioningToken });
    await expect(unwrap(provisioning.GET('/api/v1/contacts'))).rejects.toMatchObject({
      status: 403,
      type: 'forbidden',
    });
  });
});
