/**
 * Real mail servers for tests: an SMTP server (the `smtp-server` package) that keeps what it
 * receives, and a throwaway Dovecot IMAP server (Debian's `dovecot-imapd`) with one passwd-file user,
 * configured and stored under a temp dir, on free loopback ports.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { simpleParser, type ParsedMail } from 'mailparser';
import { freePort } from '../../src/config/embedded.js';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
  parsed: ParsedMail;
}

export interface SmtpSinkOptions {
  /** SMTP code to answer RCPT TO with for an address (e.g. 550), or undefined to accept. */
  rejectRecipient?: (address: string) => number | undefined;
  /** When true, the DATA answer is held back until `releaseData()` (a stalled server). */
  stallData?: boolean;
  /** Called when a DATA body has been fully received (before answering). */
  onData?: () => void;
  /**
   * How to answer the end of DATA, per message (`n`: 1-based count of bodies received, `to`: its
   * recipients). Default 'accept'. 'drop': destroy the connection without a final reply;
   * `{ reply: code, text? }`: refuse with that code (and text); `{ delayMs }`: accept only after that long.
   */
  dataEnd?: (n: number, to: string[]) => DataEndAction;
  /** Listen on this port (default: a free one). */
  port?: number;
  /**
   * Accept only SASL XOAUTH2 sign-ins for which this answers true (an OAuth provider's SMTP); every
   * accepted sign-in is counted in `signIns`.
   */
  xoauth2?: (user: string, accessToken: string) => boolean;
}

export type DataEndAction = 'accept' | 'drop' | { reply: number; text?: string } | { delayMs: number };

export interface SmtpSink {
  port: number;
  received: ReceivedMail[];
  /** Number of DATA bodies fully received, answered or not. */
  dataCount: () => number;
  releaseData: () => void;
  close: () => Promise<void>;
  /** XOAUTH2 sign-ins: accepted and refused, with the user named. */
  signIns: Array<{ user: string; ok: boolean }>;
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  let data = 0;
  const stalled: Array<() => void> = [];
  let released = !options.stallData;
  const signIns: SmtpSink['signIns'] = [];
  const xoauth2 = options.xoauth2;
  const server = new SMTPServer({
    authOptional: !xoauth2,
    ...(xoauth2
      ? {
          authMethods: ['XOAUTH2'],
          allowInsecureAuth: true,
          onAuth(
            auth: { method: string; username?: string; accessToken?: string },
            _session: SMTPServerSession,
            callback: (
              err: Error | null,
              response?: { user?: string; data?: Record<string, string> },
            ) => void,
          ) {
            const ok = auth.method === 'XOAUTH2' && xoauth2(auth.username ?? '', auth.accessToken ?? '');
            signIns.push({ user: auth.username ?? '', ok });
            if (ok) callback(null, { user: auth.username });
            else
              callback(null, {
                data: { status: '401', schemes: 'bearer', scope: 'https://mail.google.com/' },
              });
          },
        }
      : {}),
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 20 * 1024 * 1024,
    onRcptTo(
      address: SMTPServerAddress,
      _session: SMTPServerSession,
      callback: (err?: Error | null) => void,
    ) {
      const code = options.rejectRecipient?.(address.address);
      if (code) {
        callback(
          Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`), {
            responseCode: code,
          }),
        );
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        data += 1;
        options.onData?.();
        const raw = Buffer.concat(chunks);
        const action =
          options.dataEnd?.(
            data,
            session.envelope.rcptTo.map((r) => r.address),
          ) ?? 'accept';
        if (action === 'drop') {
          // The whole message is here; the connection dies before the final reply.
          const conns = (
            server as unknown as {
              connections: Set<{ session?: { id?: string }; _socket?: { destroy(): void } }>;
            }
          ).connections;
          for (const c of conns) if (c.session?.id === session.id) c._socket?.destroy();
          return;
        }
        if (typeof action === 'object' && 'reply' in action) {
          callback(
            Object.assign(new Error(action.text ?? `refused at the end of DATA (${action.reply})`), {
              responseCode: action.reply,
            }),
          );
          return;
        }
        const finish = (): void => {
          void simpleParser(raw).then((parsed) => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
            });
            callback();
          });
        };
        if (typeof action === 'object' && 'delayMs' in action) setTimeout(finish, action.delayMs);
        else if (released) finish();
        else stalled.push(finish);
      });
    },
  });
  // A client that dies mid-conversation (a killed worker) resets its connection: not a test failure.
  server.on('error', () => undefined);
  const port = options.port ?? (await freePort());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    port,
    received,
    signIns,
    dataCount: () => data,
    releaseData: () => {
      released = true;
      for (const f of stalled.splice(0)) f();
    },
    close: () =>
      new Promise<void>((resolve) => {
        released = true;
        for (const f of stalled.splice(0)) f();
        server.close(() => resolve());
      }),
  };
}

export interface Dovecot {
  port: number;
  user: string;
  password: string;
  /** Every user (`user` first); all have `password`. */
  users: string[];
  /** Appends a raw message to the user's INBOX (over IMAP, with imapflow). */
  append: (raw: string | Buffer) => Promise<void>;
  /** Appends a raw message to `user`'s INBOX. */
  appendTo: (user: string, raw: string | Buffer) => Promise<void>;
  /**
   * Stops the server (every connection ends), keeps it down `downMs`, starts it again on the same
   * port and mail, and resolves once a login works: when it went down and when it was back.
   */
  restart: (downMs: number) => Promise<{ downAt: number; upAt: number }>;
  stop: () => Promise<void>;
}

export interface DovecotOptions {
  /** More users besides `inbox` (each its own mailbox, same password), e.g. for many-mailbox tests. */
  extraUsers?: string[];
}

export const dovecotAvailable = (): boolean => existsSync('/usr/sbin/dovecot');

/**
 * Starts Dovecot with a throwaway config under a temp dir; one user with a plaintext password (plus
 * `extraUsers`). Sized for thousands of connections (one imap process each, about 2 MB).
 */
export async function startDovecot(options: DovecotOptions = {}): Promise<Dovecot> {
  if (!dovecotAvailable()) {
    throw new Error('dovecot is not installed: apt-get install -y dovecot-imapd (.ci/run does this)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'dovecot-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const user = 'inbox';
  const password = 'imap-test-password';
  // Mail is owned by an unprivileged user (Dovecot refuses uid 0 for mail access).
  const nobody = spawnSync('id', ['-u', 'nobody']).stdout.toString().trim() || '65534';
  const nogroup = spawnSync('id', ['-g', 'nobody']).stdout.toString().trim() || '65534';
  const mailDir = join(dir, 'mail');
  mkdirSync(mailDir, { recursive: true });
  mkdirSync(join(dir, 'run'), { recursive: true });
  chownSync(mailDir, Number(nobody), Number(nogroup));
  const users = [user, ...(options.extraUsers ?? [])];
  writeFileSync(join(dir, 'passwd'), users.map((u) => `${u}:{PLAIN}${password}::::::\n`).join(''));
  const conf = join(dir, 'dovecot.conf');
  const loginUser = spawnSync('id', ['-u', 'dovenull']).status === 0 ? 'dovenull' : 'nobody';
  const internalUser = spawnSync('id', ['-u', 'dovecot']).status === 0 ? 'dovecot' : 'nobody';
  writeFileSync(
    conf,
    `
base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = dovecot-test-${port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
log_path = ${dir}/dovecot.log
info_log_path = ${dir}/dovecot.log
default_login_user = ${loginUser}
default_internal_user = ${internalUser}
first_valid_uid = 1
mail_location = maildir:${mailDir}/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${nobody} gid=${nogroup} home=${mailDir}/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
  process_limit = 256
}
service imap {
  process_limit = 4096
}
default_client_limit = 20000
mail_max_userip_connections = 100
# Past the machine's inotify limit (128 instances per uid by default) Dovecot checks an idling
# mailbox every this often instead of being told at once; 30 s by default.
mailbox_idle_check_interval = 1 secs
service stats {
  unix_listener stats-writer {
    mode = 0666
  }
}
`,
  );
  mkdirSync(join(dir, 'state'), { recursive: true });
  let proc!: ChildProcess;
  /** Starts the Dovecot master on this config and waits until a login works. */
  const launch = async (): Promise<void> => {
    proc = spawn('/usr/sbin/dovecot', ['-F', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 15000;
    for (;;) {
      if (proc.exitCode !== null) {
        const log = existsSync(join(dir, 'dovecot.log'))
          ? readFileSync(join(dir, 'dovecot.log'), 'utf8')
          : '';
        throw new Error(`dovecot exited: ${output}\n${log}`);
      }
      const ok = await new Promise<boolean>((resolve) => {
        const c = new ImapFlow({
          host: '127.0.0.1',
          port,
          secure: false,
          auth: { user, pass: password },
          logger: false,
        });
        c.on('error', () => undefined);
        c.connect()
          .then(() => c.logout())
          .then(() => resolve(true))
          .catch(() => resolve(false));
      });
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`dovecot did not come up: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** The master's child processes (imap, auth, log, ...), from /proc. */
  const childrenOf = (pid: number): number[] =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          // `pid (comm) state ppid ...`: comm may hold spaces, so read past its closing parenthesis.
          const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
        } catch {
          return false;
        }
      })
      .map(Number);
  const signal = (pid: number, sig: NodeJS.Signals | 0): boolean => {
    try {
      process.kill(pid, sig);
      return true;
    } catch {
      return false;
    }
  };
  /**
   * Stops the server as a restart does: the master (SIGTERM; SIGKILL after 3 s) and every process it
   * started. The master alone leaves its logged-in imap processes running, their clients connected.
   */
  const halt = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const children = childrenOf(proc.pid!);
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
    const left = children.filter((pid) => signal(pid, 'SIGTERM'));
    const deadline = Date.now() + 2000;
    while (left.some((pid) => signal(pid, 0)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    for (const pid of left) signal(pid, 'SIGKILL');
  };
  await launch();
  const appendTo = async (to: string, raw: string | Buffer): Promise<void> => {
    const c = new ImapFlow({
      host: '127.0.0.1',
      port,
      secure: false,
      auth: { user: to, pass: password },
      logger: false,
    });
    c.on('error', () => undefined);
    await c.connect();
    try {
      await c.append('INBOX', typeof raw === 'string' ? Buffer.from(raw.replace(/\r?\n/g, '\r\n')) : raw);
    } finally {
      await c.logout();
    }
  };
  return {
    port,
    user,
    password,
    users,
    appendTo,
    append: (raw) => appendTo(user, raw),
    restart: async (downMs: number) => {
      await halt();
      const downAt = Date.now();
      await new Promise((r) => setTimeout(r, downMs));
      await launch();
      return { downAt, upAt: Date.now() };
    },
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
