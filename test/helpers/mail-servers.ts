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
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
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
  const proc: ChildProcess = spawn('/usr/sbin/dovecot', ['-F', '-c', conf], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 15000;
  for (;;) {
    if (proc.exitCode !== null) {
      const log = existsSync(join(dir, 'dovecot.log')) ? readFileSync(join(dir, 'dovecot.log'), 'utf8') : '';
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
    append: async (raw) => {
      const c = new ImapFlow({
        host: '127.0.0.1',
        port,
        secure: false,
        auth: { user, pass: password },
        logger: false,
      });
      c.on('error', () => undefined);
      await c.connect();
      try {
        await c.append('INBOX', typeof raw === 'string' ? Buffer.from(raw.replace(/\r?\n/g, '\r\n')) : raw);
      } finally {
        await c.logout();
      }
    },
    stop: async () => {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Outreach fixtures: rows seeded directly (inbox with sealed settings, published sequence, active
// campaign, contacts, due enrollments), so the sending tests depend only on the schema.

export interface SeedStep {
  subject: string | null;
  body: string;
  delay_minutes?: number;
  variants?: Array<{ subject: string | null; body: string }>;
}

export interface SeedCampaignInput {
  workspaceId: string;
  smtpPort: number;
  imapPort?: number;
  imapUser?: string;
  imapPassword?: string;
  inboxes?: number;
  inboxDailyLimit?: number;
  domain?: string;
  campaignDailyLimit?: number | null;
  schedule?: { timezone: string; days: string[]; start_time: string; end_time: string };
  steps?: SeedStep[];
  stopOnReply?: boolean;
  /** Issue 16 campaign fields. */
  startAt?: Date | null;
  sendInContactTimezone?: boolean;
  stopOnReplyScope?: 'contact' | 'domain';
}

export interface SeededCampaign {
  campaignId: number;
  sequenceId: number;
  inboxIds: string[];
  inboundSecrets: string[];
}

export const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

export async function seedCampaign(query: Query, input: SeedCampaignInput): Promise<SeededCampaign> {
  const { sealSettings, hashInboundSecret, newInboundSecret } =
    await import('../../src/modules/inboxes/inbox-credentials.js');
  const domain = input.domain ?? `acme-${Math.random().toString(36).slice(2, 8)}.test`;
  const inboxIds: string[] = [];
  const inboundSecrets: string[] = [];
  for (let i = 0; i < (input.inboxes ?? 1); i++) {
    const secret = newInboundSecret();
    // The id is chosen here: sealed settings are bound to their inbox's id.
    const id = randomUUID();
    const smtp = sealSettings(
      {
        host: '127.0.0.1',
        port: input.smtpPort,
        secure: false,
        user: null,
        password: null,
      },
      id,
      'smtp',
    );
    const imap = input.imapPort
      ? sealSettings(
          {
            host: '127.0.0.1',
            port: input.imapPort,
            secure: false,
            user: input.imapUser ?? null,
            password: input.imapPassword ?? null,
          },
          id,
          'imap',
        )
      : null;
    const rows = (await query(
      `INSERT INTO inboxes (id, workspace_id, email, display_name, domain, daily_limit, smtp_sealed, imap_sealed, inbound_secret_hash)
       VALUES ($9, $1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [
        input.workspaceId,
        `sender${i + 1}@${domain}`,
        `Sam Sender ${i + 1}`,
        domain,
        input.inboxDailyLimit ?? 1000,
        smtp,
        imap,
        hashInboundSecret(secret),
        id,
      ],
    )) as Array<{ id: string }>;
    inboxIds.push(rows[0].id);
    inboundSecrets.push(secret);
  }
  const steps = (
    input.steps ?? [
      { subject: 'Hello {{ first_name }}', body: 'Hi {{ first_name }}, step one.' },
      { subject: null, body: 'Following up, {{ first_name }}.' },
    ]
  ).map((s, i) => ({
    position: i + 1,
    delay_minutes: s.delay_minutes ?? 0,
    subject: s.subject,
    body: s.body,
    ...(s.variants ? { variants: s.variants } : {}),
  }));
  const [seq] = (await query(
    `INSERT INTO sequences (workspace_id, name, status, steps, published_at) VALUES ($1, 'Seq', 'published', $2, now()) RETURNING id`,
    [input.workspaceId, JSON.stringify(steps)],
  )) as Array<{ id: number }>;
  const schedule = input.schedule ?? {
    timezone: 'UTC',
    days: ALL_DAYS,
    start_time: '00:00',
    end_time: '24:00',
  };
  const [campaign] = (await query(
    `INSERT INTO campaigns (workspace_id, name, sequence_id, status, inbox_ids, schedule, daily_limit, stop_on_reply,
       activated_at, start_at, send_in_contact_timezone, stop_on_reply_scope)
     VALUES ($1, 'Campaign', $2, 'active', $3, $4, $5, $6, now(), $7, $8, $9) RETURNING id`,
    [
      input.workspaceId,
      seq.id,
      inboxIds,
      JSON.stringify(schedule),
      input.campaignDailyLimit ?? null,
      input.stopOnReply ?? true,
      input.startAt ?? null,
      input.sendInContactTimezone ?? false,
      input.stopOnReplyScope ?? 'contact',
    ],
  )) as Array<{ id: number }>;
  return { campaignId: Number(campaign.id), sequenceId: Number(seq.id), inboxIds, inboundSecrets };
}

export async function seedContact(
  query: Query,
  workspaceId: string,
  email: string,
  fields: {
    first_name?: string;
    company?: string;
    custom_fields?: Record<string, string>;
    timezone?: string;
  } = {},
): Promise<number> {
  const [row] = (await query(
    `INSERT INTO contacts (workspace_id, email, first_name, company, custom_fields, timezone) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      workspaceId,
      email,
      fields.first_name ?? null,
      fields.company ?? null,
      JSON.stringify(fields.custom_fields ?? {}),
      fields.timezone ?? null,
    ],
  )) as Array<{ id: number }>;
  return Number(row.id);
}

/** An active enrollment due now (or at `dueAt`). */
export async function seedEnrollment(
  query: Query,
  workspaceId: string,
  campaignId: number,
  contactId: number,
  dueAt: Date = new Date(Date.now() - 1000),
): Promise<number> {
  const [row] = (await query(
    `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
     VALUES ($1, $2, $3, 'active', 0, $4) RETURNING id`,
    [workspaceId, campaignId, contactId, dueAt],
  )) as Array<{ id: number }>;
  return Number(row.id);
}
