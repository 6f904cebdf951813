/** Admin CLI (nest-commander): `npm run cli -- <command> [flags]`, same code, config and database as the server. */
import 'reflect-metadata';
import { prepareEmbedded } from './config/embedded.js';

const embedded = await prepareEmbedded({ redis: false });
const { runMigrations } = await import('./database/migrate.js');
const { CommandFactory } = await import('nest-commander');
const { CliModule } = await import('./cli.module.js');
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
    errorHandler: (err: Error) => {
      const code = (err as { code?: string }).code;
      if (code === 'commander.helpDisplayed' || code === 'commander.help' || code === 'commander.version') {
        process.exitCode = 0;
        return;
      }
      process.stderr.write(`error: ${err.message.replace(/^error: /, '').split('\n')[0]}\n`);
      process.exitCode = 1;
    },
    serviceErrorHandler: (err: Error) => {
      process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
      process.exitCode = 1;
    },
  });
} catch (err) {
  process.stderr.write(`error: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await embedded.stop();
}
