/**
 * Entry point for the HTTP API and the workers (APP_ROLE=all|api|worker). With no DATABASE_URL or
 * REDIS_URL, embedded PostgreSQL and a private redis-server are started under .data/ first.
 */
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { prepareEmbedded } from './config/embedded.js';
import { loadEnvFile } from './config/env-file.js';

async function main(): Promise<void> {
  let embedded;
  try {
    loadEnvFile();
    embedded = await prepareEmbedded();
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
  const { appConfig, ConfigError } = await import('./config/app-config.js');
  let config;
  try {
    config = appConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const { logger } = await import('./common/logging/logger.js');
  const { drainThenClose } = await import('./shutdown.js');
  /**
   * The one signal handler. The first SIGTERM/SIGINT drains and closes within
   * SHUTDOWN_TIMEOUT_SECONDS (shutdown.ts), then stops embedded services, and exits 0 (1 after an
   * error or the timeout). A second one while that runs (a second Ctrl-C), or one before the service
   * is up, exits at once and quietly: the embedded services are told to stop, what was in flight is
   * left as a crash leaves it (docs/operations.md), and the exit code is 128 + the signal's number
   * (130 for SIGINT, 143 for SIGTERM), as for a process a signal ended.
   */
  let running: INestApplicationContext | undefined;
  let stopping = false;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (stopping || !running) {
      logger.warn({ signal }, 'stopping at once');
      embedded.stopNow();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopping = true;
    const app = running;
    void (async () => {
      const code = await drainThenClose(app, signal, config.shutdownTimeoutSeconds * 1000);
      await embedded.stop();
      process.exit(code);
    })();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  const { runMigrations } = await import('./database/migrate.js');
  if (config.runMigrations) {
    const applied = await runMigrations();
    if (applied.length) logger.info({ applied }, 'migrations applied');
  }
  if (config.appRole === 'worker') {
    const { NestFactory } = await import('@nestjs/core');
    const { AppModule } = await import('./app.module.js');
    const { PinoNestLogger } = await import('./common/logging/logger.js');
    running = await NestFactory.createApplicationContext(AppModule, { logger: new PinoNestLogger() });
    logger.info('workers ready');
    return;
  }
  const { createHttpApp } = await import('./app.factory.js');
  const app = await createHttpApp();
  await app.listen(config.port);
  running = app;
  const url = `http://localhost:${config.port}`;
  if (embedded.embeddedDatabase) {
    // The CLI run from this folder (same DATA_DIR) prints calls to this address (demo, README);
    // written before the ready line, so whoever waits for that line finds it.
    const { dataDirPath, writeServiceFile, removeServiceFile } = await import('./config/service-file.js');
    const dir = dataDirPath();
    writeServiceFile(dir, config.publicUrl);
    process.once('exit', () => removeServiceFile(dir));
  }
  // The one ready line, at info; with LOG_LEVEL above info still printed once (supervisors and
  // scripts wait for it).
  if (logger.isLevelEnabled('info')) logger.info(`listening on ${url}`);
  else console.log(`listening on ${url}`);
  if (embedded.embeddedDatabase) {
    const { OrganizationsRepository } = await import('./modules/organizations/organizations.repository.js');
    if ((await app.get(OrganizationsRepository).countAll()) === 0) {
      console.log(
        [
          '',
          `API docs:     ${config.publicUrl}/docs  (OpenAPI: ${config.publicUrl}/api/v1/openapi.json)`,
          'No organizations yet. Create a demo tenant and keys with:  npm run cli -- demo',
          'or step by step:  npm run cli -- org:create --name Acme  (see README "Getting a key")',
          '',
        ].join('\n'),
      );
    }
  }
}

await main();
