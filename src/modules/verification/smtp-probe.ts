/**
 * One SMTP conversation of the address probe (docs/verification.md): connect to an MX host, EHLO,
 * MAIL FROM, RCPT TO each recipient in turn (stopping at the first one not accepted), then QUIT,
 * never DATA. The protocol is nodemailer's SMTP client (`smtp-connection`: the greeting, EHLO/HELO,
 * STARTTLS, multi-line replies, timeouts); its public hook for commands of one's own, a custom SASL
 * handler's `sendCommand`, carries MAIL FROM and RCPT TO, because `send()` always goes on to DATA.
 * Total: every failure is an answer (`ok: false`), never an exception, within `deadlineMs`.
 */
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';

/**
 * How the server answered one RCPT TO. `no_mailbox`: a permanent refusal that names the mailbox
 * (550/551/553 with an enhanced code 5.1.x, or none); `refused`: another permanent refusal (a policy
 * such as 5.7.1, which says nothing about the mailbox); `deferred`: a temporary one (4xx, greylisting).
 */
export type RcptAnswer = 'accepted' | 'no_mailbox' | 'refused' | 'deferred';

export interface ProbeRequest {
  /** The address to connect to (the MX host already resolved). */
  ip: string;
  /** The MX host's name, for TLS SNI. */
  servername: string;
  port: number;
  heloName: string;
  /** The reverse path; '' for the null sender. */
  mailFrom: string;
  recipients: string[];
  deadlineMs: number;
}

export type ProbeResult = { ok: true; answers: RcptAnswer[] } | { ok: false; error: string };

/** The custom "SASL method" that carries the envelope commands (never sent to the server as AUTH). */
const ENVELOPE = 'X-ENVELOPE-PROBE';

export function rcptAnswerOf(status: number, enhanced: string | undefined): RcptAnswer {
  if (status >= 200 && status < 300) return 'accepted';
  if (status >= 500 && status < 600) {
    const mailboxCode = [550, 551, 553].includes(status);
    return mailboxCode && (!enhanced || /^5\.1\.\d+$/.test(enhanced)) ? 'no_mailbox' : 'refused';
  }
  return 'deferred';
}

export function probeRecipients(req: ProbeRequest): Promise<ProbeResult> {
  return new Promise<ProbeResult>((resolve) => {
    const answers: RcptAnswer[] = [];
    let settled = false;
    const conn = new SMTPConnection({
      host: req.ip,
      port: req.port,
      name: req.heloName,
      connectionTimeout: req.deadlineMs,
      greetingTimeout: req.deadlineMs,
      socketTimeout: req.deadlineMs,
      socketCloseTimeout: 0,
      opportunisticTLS: true,
      // Only the envelope is said: a certificate that does not match changes nothing the probe learns.
      tls: { rejectUnauthorized: false, servername: req.servername },
      logger: false,
      customAuth: {
        [ENVELOPE]: async (ctx) => {
          const utf8 = req.recipients.some((r) => /[^\x20-\x7e]/.test(r));
          if (utf8 && !ctx.extensions.includes('SMTPUTF8')) throw new Error('SMTPUTF8 not offered');
          const mail = await ctx.sendCommand(`MAIL FROM:<${req.mailFrom}>${utf8 ? ' SMTPUTF8' : ''}`);
          if (mail.status < 200 || mail.status >= 300) throw new Error(`MAIL FROM: ${mail.response}`);
          for (const recipient of req.recipients) {
            const reply = await ctx.sendCommand(`RCPT TO:<${recipient}>`);
            const answer = rcptAnswerOf(reply.status, reply.code);
            answers.push(answer);
            if (answer !== 'accepted') break;
          }
        },
      },
    });
    const finish = (result: ProbeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (result.ok) conn.quit();
      else conn.close();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, error: 'deadline' }), req.deadlineMs);
    conn.on('error', (err: Error) => finish({ ok: false, error: err.message }));
    conn.on('end', () => finish({ ok: false, error: 'connection closed' }));
    conn.connect((err?: Error | null) => {
      if (err) return finish({ ok: false, error: err.message });
      conn.login({ method: ENVELOPE, user: 'probe' }, (loginErr?: Error | null) =>
        finish(loginErr ? { ok: false, error: loginErr.message } : { ok: true, answers }),
      );
    });
  });
}
