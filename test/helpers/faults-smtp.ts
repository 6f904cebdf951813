/**
 * SMTP servers for the fault suite: one that records every message it receives, and a misbehaving
 * one (startDropAfterDataServer) that speaks enough ESMTP to be sent to (greeting,
 * EHLO, MAIL FROM, RCPT TO, DATA 354), reads the whole message up to the terminating `.` line, keeps
 * it, and then drops the connection WITHOUT the final reply: `close` ends the socket (FIN), `reset`
 * aborts it (RST). This is a server that may well have queued the mail: the client cannot know.
 * Plain `net`, because the `smtp-server` package always answers the end of DATA.
 */
import { createServer, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { freePort } from './processes.js';

export interface ReceivedMessage {
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  /** The message as received (headers and body, transfer encoding untouched). */
  raw: string;
}

export interface DropAfterDataServer {
  port: number;
  /** Every message whose DATA was received in full (and then dropped). */
  received: ReceivedMessage[];
  close(): Promise<void>;
}

export async function startDropAfterDataServer(mode: 'close' | 'reset'): Promise<DropAfterDataServer> {
  const received: ReceivedMessage[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.write('220 drop.test ESMTP ready\r\n');
    let buffer = '';
    let inData = false;
    let to: string[] = [];
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          received.push({ to, raw: buffer.slice(0, end) });
          buffer = '';
          inData = false;
          // The message is in; the answer to it never comes.
          if (mode === 'reset') socket.resetAndDestroy();
          else socket.destroy();
          return;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-drop.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n');
        else if (verb === 'HELO') socket.write('250 drop.test\r\n');
        else if (verb === 'MAIL') {
          to = [];
          socket.write('250 2.1.0 Ok\r\n');
        } else if (verb === 'RCPT') {
          to.push(/<([^>]*)>/.exec(line)?.[1]?.toLowerCase() ?? '');
          socket.write('250 2.1.5 Ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 End data with <CR><LF>.<CR><LF>\r\n');
          // The terminator check needs the CRLF that precedes the first line too.
          buffer = `\r\n${buffer}`;
        } else if (verb === 'RSET' || verb === 'NOOP') socket.write('250 2.0.0 Ok\r\n');
        else if (verb === 'QUIT') {
          socket.end('221 2.0.0 Bye\r\n');
          return;
        } else socket.write('502 5.5.2 Command not recognized\r\n');
      }
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface RecordingServer {
  port: number;
  /** Every message received in full and acknowledged (250), in order. */
  received: ReceivedMessage[];
  close(): Promise<void>;
}

/**
 * A well-behaved SMTP server (the `smtp-server` package) that records every message and answers
 * the end of DATA at once (no parsing on the reply path, so a busy test process does not slow the
 * sender's conversations). Clients that vanish mid-conversation (a SIGKILLed worker) are expected:
 * socket errors are ignored.
 */
export async function startRecordingServer(): Promise<RecordingServer> {
  const received: ReceivedMessage[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 20 * 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw: Buffer.concat(chunks).toString('latin1'),
        });
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
