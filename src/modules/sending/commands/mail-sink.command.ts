/**
 * `mail:sink`: a local SMTP server that accepts everything and prints one line per message (and the
 * unsubscribe link), for the demo and for development. Never relays anything. Needs the
 * `smtp-server` package (a dev dependency, installed by `npm install`).
 */
import { Command, CommandRunner, Option } from 'nest-commander';
import { parseIntFlag } from '../../../common/cli/json-command.js';
import { DEMO_SINK_PORT } from './demo.command.js';

interface Flags {
  port?: number;
  host?: string;
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
    const host = o.host ?? '127.0.0.1';
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const head = raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
          const h = (n: string): string => new RegExp(`^${n}:[ \\t]*(.*)$`, 'im').exec(head)?.[1] ?? '';
          const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
          process.stdout.write(
            `${new Date().toISOString()}  ${h('From')} -> ${to}  "${h('Subject')}"  ${h('Message-ID')}\n` +
              `    unsubscribe: ${h('List-Unsubscribe')}\n`,
          );
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    process.stdout.write(`SMTP sink listening on ${host}:${port}; Ctrl-C to stop\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
