/**
 * `mail:sink`: a local SMTP server that accepts everything and prints one line per message (and the
 * unsubscribe link), for the demo and for development. Never relays anything. Needs the
 * `smtp-server` package (a dev dependency, installed by `npm install`). `--bodies` prints each
 * message's text too (the A/B variant, the footer). After each message it writes a reply to it,
 * `reply.eml` in DATA_DIR (`.data/`), that can be piped to `POST /api/v1/inbound/{inbox_id}` to see
 * a reply recorded: it quotes the message's own Message-ID, so it matches the sent step.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { simpleParser } from 'mailparser';
import { Command, CommandRunner, Option } from 'nest-commander';
import { parseIntFlag } from '../../../common/cli/json-command.js';
import { DEMO_SINK_PORT } from './demo.command.js';

interface Flags {
  port?: number;
  host?: string;
  bodies?: boolean;
}

/** Longest body printed per message with --bodies; the rest is cut with a note. */
const BODY_PRINT_LIMIT = 4000;

/** A reply from the recipient to `raw`, as its mail client would write it (RFC 5322 threading). */
export function replyTo(
  message: { from: string; to: string; subject: string; messageId: string; references: string },
  now = new Date(),
): string {
  const refs = [message.references, message.messageId].filter(Boolean).join(' ');
  return [
    `From: ${message.to}`,
    `To: ${message.from}`,
    `Subject: ${/^re:/i.test(message.subject) ? message.subject : `Re: ${message.subject}`}`,
    `Date: ${now.toUTCString()}`,
    `Message-ID: <sink-reply-${now.getTime()}@sink.localhost>`,
    `In-Reply-To: ${message.messageId}`,
    `References: ${refs}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Thanks, this sounds interesting. Could we talk on Thursday?',
    '',
  ].join('\r\n');
}

@Command({
  name: 'mail:sink',
  description: 'Run a local SMTP sink that prints the mail it receives (development)',
})
export class MailSinkCommand extends CommandRunner {
  @Option({ flags: '--port <port>', description: `port (default ${DEMO_SINK_PORT})` })
  parsePort(v: string): number {
    return parseIntFlag('port')(v);
  }

  @Option({ flags: '--host <host>', description: 'address to listen on (default 127.0.0.1)' })
  parseHost(v: string): string {
    return v;
  }

  @Option({ flags: '--bodies', description: "print each message's text body too" })
  parseBodies(): boolean {
    return true;
  }

  async run(_: string[], o: Flags): Promise<void> {
    let SMTPServer: typeof import('smtp-server').SMTPServer;
    try {
      ({ SMTPServer } = await import('smtp-server'));
    } catch {
      process.stderr.write('error: the smtp-server package is not installed (npm install includes it)\n');
      process.exitCode = 1;
      return;
    }
    const port = o.port ?? DEMO_SINK_PORT;
    const dataDir = resolve(process.env.DATA_DIR || '.data');
    const replyFile = join(dataDir, 'reply.eml');
    const host = o.host ?? '127.0.0.1';
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          const head = raw
            .toString('utf8')
            .split(/\r?\n\r?\n/)[0]
            .replace(/\r?\n[ \t]+/g, ' ');
          const h = (n: string): string => new RegExp(`^${n}:[ \\t]*(.*)$`, 'im').exec(head)?.[1] ?? '';
          const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
          process.stdout.write(
            `${new Date().toISOString()}  ${h('From')} -> ${to}  "${h('Subject')}"  ${h('Message-ID')}\n` +
              `    unsubscribe: ${h('List-Unsubscribe')}\n`,
          );
          try {
            mkdirSync(dataDir, { recursive: true });
            writeFileSync(
              replyFile,
              replyTo({
                from: h('From'),
                to: session.envelope.rcptTo[0]?.address ?? '',
                subject: h('Subject'),
                messageId: h('Message-ID'),
                references: h('References'),
              }),
            );
          } catch (err) {
            process.stderr.write(`    (could not write ${replyFile}: ${(err as Error).message})\n`);
          }
          if (!o.bodies) return callback();
          simpleParser(raw)
            .then((parsed) => {
              const text = (parsed.text ?? '').trim();
              const shown =
                text.length > BODY_PRINT_LIMIT ? `${text.slice(0, BODY_PRINT_LIMIT)}\n[… cut]` : text;
              process.stdout.write(`${shown.replace(/^/gm, '    | ')}\n`);
            })
            .catch((err: Error) => process.stdout.write(`    (body unreadable: ${err.message})\n`))
            .finally(() => callback());
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    process.stdout.write(
      `SMTP sink listening on ${host}:${port}; Ctrl-C to stop\n` +
        `After each message, a reply to it is written to ${replyFile} (pipe it to POST /api/v1/inbound/{inbox_id})\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
