/** Admin CLI (nest-commander): `npm run cli -- <command> [flags]`, same code, config and database as the server. */
import 'reflect-metadata';
import { prepareEmbedded } from './config/embedded.js';
import { loadEnvFile } from './config/env-file.js';

try {
  loadEnvFile();
} catch (err) {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
// On embedded defaults the CLI works on the data of the service started from this folder. It never
// creates a second, empty installation beside it: a data folder that does not exist (the service
// runs with another DATA_DIR, or has never been started) is refused, naming what to do. The SMTP
// sink needs no data; migrate creates the database on purpose.
const command = process.argv[2] ?? '';
const needsData =
  !['mail:sink', 'migrate', '--help', '-h', 'help', ''].includes(command) && !process.argv.includes('--help');
if (!process.env.DATABASE_URL && needsData) {
  const { dataDirPath } = await import('./config/service-file.js');
  const { existsSync } = await import('node:fs');
  const dir = dataDirPath();
  if (!existsSync(dir)) {
    process.stderr.write(
      `error: no data folder at ${dir}: start the service first (npm start), or run the CLI with the same DATA_DIR (or DATABASE_URL) as the service\n`,
    );
    process.exit(1);
  }
}
const embedded = await prepareEmbedded({ redis: false });
// Ctrl-C (or SIGTERM) on a long command (import, mail:sink): the embedded database this process
// started stops with it, and the exit status says the command did not finish.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    embedded.stopNow();
    process.exit(code);
  });
}
const { runMigrations } = await import('./database/migrate.js');
const { CommandFactory } = await import('nest-commander');
const { CliModule } = await import('./cli.module.js');

/** A commander error (thrown by every command, see common/cli/commander-errors.ts): already printed. */
function commanderExitCode(err: unknown): number | undefined {
  const e = err as { code?: unknown; exitCode?: unknown };
  return typeof e?.code === 'string' && e.code.startsWith('commander.') && typeof e.exitCode === 'number'
    ? e.exitCode
    : undefined;
}

try {
  if (
    process.argv[2] !== 'migrate' &&
    !process.argv.includes('--help') &&
    process.env.RUN_MIGRATIONS !== 'false'
  ) {
    await runMigrations();
  }
  await CommandFactory.run(CliModule, {
    logger: false,
    // A failure while starting (the database unreachable) reaches the catch below and is printed;
    // by default Nest exits 1 with nothing said (the logger is off).
    abortOnError: false,
    serviceErrorHandler: (err: Error) => {
      const exitCode = commanderExitCode(err);
      if (exitCode !== undefined) {
        process.exitCode = exitCode;
        return;
      }
      process.stderr.write(`error: ${err.message.replace(/^error: /, '').split('\n')[0]}\n`);
      process.exitCode = 1;
    },
  });
} catch (err) {
  process.stderr.write(`error: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await embedded.stop();
}
