/**
 * The README's "See mail flow in a minute", run as a newcomer runs it: the built service on embedded
 * defaults in a fresh DATA_DIR on a port that is not the default, `mail:sink --bodies` and `demo`
 * from the same folder with the same DATA_DIR (and no PORT: the CLI finds the running service's
 * address in its data folder), then the calls `demo` printed, executed by a shell exactly as printed.
 * The first step arrives in the sink with its body, the printed reply file is piped to the inbound
 * route and the thread shows the reply. Ctrl-C (SIGINT) stops the service with exit 0.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/config/embedded.js';
import { ensureBuilt } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';

interface Proc {
  child: ChildProcess;
  output: () => string;
}

function start(args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

describe("the README's first minute, as printed", () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const procs: Proc[] = [];
  let dns: DnsServer;

  beforeAll(async () => {
    ensureBuilt();
    // Address checks on, against a resolver that answers as the real DNS does: example.com and
    // example.org (the demo's contacts) publish a null MX (RFC 7505) and accept no mail at all.
    dns = await startDnsServer();
    for (const name of ['example.com', 'example.org'])
      dns.add(name, { type: 'MX', exchange: '', priority: 0 });
    dataDir = mkdtempSync(join(tmpdir(), 'readme-walk-'));
    // The embedded PostgreSQL runs as another user: the folder a newcomer uses is readable by others.
    chmodSync(dataDir, 0o755);
    env = {
      ...process.env,
      NODE_OPTIONS: '',
      DATA_DIR: dataDir,
      ENV_FILE: '',
      VERIFY_ADDRESSES: 'true',
      DNS_SERVERS: dns.address,
    };
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'API_KEY_PEPPER',
      'ENCRYPTION_KEY',
      'ENCRYPTION_KEYS',
      'RUN_MIGRATIONS',
      'PORT',
      'PUBLIC_URL',
      'LOG_LEVEL',
      'REDIS_PREFIX',
    ]) {
      delete env[name];
    }
  });

  afterAll(async () => {
    for (const p of procs)
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await dns?.close();
  });

  it('sends the first step to the sink, takes the printed reply, and stops on Ctrl-C', async () => {
    const port = await freePort();
    const sinkPort = await freePort();
    const service = start(['dist/main.js'], { ...env, PORT: String(port), SEND_TICK_MS: '1000' });
    procs.push(service);
    await waitFor(
      async () => service.output().includes('listening on'),
      'the service to listen',
      240_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${service.output().slice(-3000)}`);
    });
    expect(service.output()).toContain(`listening on http://localhost:${port}`);
    expect(existsSync(join(dataDir, 'service.json'))).toBe(true);

    const sink = start(['dist/cli.js', 'mail:sink', '--bodies', '--port', String(sinkPort)], env);
    procs.push(sink);
    await waitFor(async () => sink.output().includes('SMTP sink listening'), 'the sink', 120_000);

    // `demo` without PORT: it prints calls to the running service's port, with real ids.
    const demo = await run(
      process.execPath,
      ['dist/cli.js', 'demo', '--smtp-port', String(sinkPort), '--starts-in', '2'],
      env,
    );
    expect({ code: demo.code, out: demo.out }).toEqual({
      code: 0,
      out: expect.stringContaining('Demo tenant ready.'),
    });
    expect(demo.out).toContain(`http://localhost:${port}/api/v1`);
    expect(demo.out).not.toContain('localhost:3000');
    expect(demo.out).not.toMatch(/<id|\{id\}|threads\/311|webhook-endpoints\/42/);
    const calls = demo.out
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('curl ') || l.startsWith('GRACE_ID='));
    expect(calls).toHaveLength(6);
    const sh = (script: string) => run('bash', ['-c', script], env);
    const campaignId = /campaign\s+(\d+)/.exec(demo.out)?.[1];

    // Step 3: another contact, created and enrolled by the two printed lines in one shell.
    const enrolled = await sh(`${calls[0]}\n${calls[1]}`);
    expect(enrolled.code).toBe(0);
    expect(JSON.parse(enrolled.out)).toMatchObject({ data: { status: expect.any(String) } });

    // The first step reaches the sink, its body shown (--bodies), and the sink writes the reply file.
    await waitFor(
      async () => /\| (Hi|Hello) Ada,/.test(sink.output()),
      'the first step in the sink',
      120_000,
    ).catch(async (err: Error) => {
      // What the service says of the campaign's enrollments, to tell a stopped one from a slow engine.
      const rows = await sh(
        calls[2].replace(/threads\?contact_id=\d+/, `campaigns/${campaignId}/enrollments`),
      );
      throw new Error(
        `${err.message}\nenrollments:\n${rows.out}\nsink:\n${sink.output()}\nservice:\n${service.output().slice(-3000)}`,
      );
    });
    expect(sink.output()).toContain('ada@example.com');
    const replyFile = join(dataDir, 'reply.eml');
    await waitFor(async () => existsSync(replyFile), 'the reply file');
    expect(readFileSync(replyFile, 'utf8')).toMatch(/^In-Reply-To: <.+>$/m);

    // Step 4: the thread of Ada, as printed.
    const threads = JSON.parse((await sh(calls[2])).out) as { data: Array<{ contact_id: number }> };
    expect(threads.data).toHaveLength(1);
    const steps = JSON.parse((await sh(calls[3])).out) as { data: unknown[] };
    expect(steps.data.length).toBeGreaterThan(0);
    // Step 5: pipe the reply as printed; the thread then has a reply.
    const piped = JSON.parse((await sh(calls[4])).out) as { data?: unknown };
    expect(JSON.stringify(piped)).toMatch(/recorded|reply/);
    const replied = await waitFor(
      async () => {
        const r = JSON.parse((await sh(calls[5])).out) as { data: unknown[] };
        return r.data.length === 1 && r;
      },
      'the thread with a reply',
      30_000,
    );
    expect(replied.data).toHaveLength(1);

    // Ctrl-C: the service drains, stops its embedded servers and exits 0.
    service.child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => service.child.once('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    expect(existsSync(join(dataDir, 'service.json'))).toBe(false);
    sink.child.kill('SIGINT');
  }, 600_000);

  it('the CLI refuses to start a second, empty installation where the service has none', async () => {
    const elsewhere = join(dataDir, 'not-here');
    const res = await run(
      process.execPath,
      ['dist/cli.js', 'key:list', '--org', '5b0a3c1e-2f4d-4e6a-8b7c-9d0e1f2a3b4c'],
      {
        ...env,
        DATA_DIR: elsewhere,
      },
    );
    expect(res.code).toBe(1);
    expect(res.out.trim()).toBe(
      `error: no data folder at ${elsewhere}: start the service first (npm start), or run the CLI with the same DATA_DIR (or DATABASE_URL) as the service`,
    );
    expect(existsSync(elsewhere)).toBe(false);
  }, 60_000);
});
