/**
 * A local SMTP server (the `smtp-server` package) for the address probe: every RCPT TO is answered
 * by `answer(address)` (a reply code; 2xx accepts), and what the probe did is recorded: connections,
 * the EHLO name, each MAIL FROM and RCPT TO, and DATA (which the probe must never send).
 */
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import { freePort } from '../../src/config/embedded.js';

/** A reply code, and its text (an enhanced status code first, as real servers say it). */
export type RcptReply = { code: number; text: string };

export const REPLIES = {
  accept: { code: 250, text: 'Accepted' },
  unknown: { code: 550, text: '5.1.1 Recipient address rejected: User unknown' },
  greylisted: { code: 450, text: '4.2.0 Greylisted, please try again later' },
  policy: { code: 554, text: '5.7.1 Client host rejected: Access denied' },
} satisfies Record<string, RcptReply>;

export interface ProbeSmtpServer {
  port: number;
  /** Connections accepted, in order, with the EHLO name, the MAIL FROM and the RCPT TO addresses. */
  sessions: Array<{ helo: string; mailFrom: string[]; rcptTo: string[] }>;
  /** Times a DATA command was accepted by the server (reached onData). */
  dataCalls: () => number;
  close(): Promise<void>;
}

export async function startProbeSmtpServer(answer: (address: string) => RcptReply): Promise<ProbeSmtpServer> {
  const sessions: ProbeSmtpServer['sessions'] = [];
  const byId = new Map<string, ProbeSmtpServer['sessions'][number]>();
  let data = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const entry = { helo: '', mailFrom: [], rcptTo: [] };
      sessions.push(entry);
      byId.set(session.id, entry);
      callback();
    },
    onMailFrom(
      address: SMTPServerAddress,
      session: SMTPServerSession,
      callback: (err?: Error | null) => void,
    ) {
      const entry = byId.get(session.id);
      if (entry) {
        entry.helo = session.hostNameAppearsAs;
        entry.mailFrom.push(address.address);
      }
      callback();
    },
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      byId.get(session.id)?.rcptTo.push(address.address);
      const reply = answer(address.address);
      if (reply.code < 300) callback();
      else callback(Object.assign(new Error(reply.text), { responseCode: reply.code }));
    },
    onData(stream, _session, callback) {
      data += 1;
      stream.resume();
      stream.on('end', () => callback(Object.assign(new Error('no DATA here'), { responseCode: 554 })));
    },
  });
  server.on('error', () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    port,
    sessions,
    dataCalls: () => data,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
