import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommanderErrors } from './common/cli/commander-errors.js';
import { SecretsCliModule } from './common/crypto/commands/secrets-cli.module.js';
import { LifecycleModule } from './common/lifecycle/draining.js';
import { DatabaseCliModule } from './database/commands/database-cli.module.js';
import { nestDataSourceOptions } from './database/data-source.js';
import { ApiKeysCliModule } from './modules/api-keys/commands/api-keys-cli.module.js';
import { ImportsCliModule } from './modules/imports/commands/imports-cli.module.js';
import { InboxesCliModule } from './modules/inboxes/commands/inboxes-cli.module.js';
import { OrganizationsCliModule } from './modules/organizations/commands/organizations-cli.module.js';
import { SendingCliModule } from './modules/sending/commands/sending-cli.module.js';
import { WorkspacesCliModule } from './modules/workspaces/commands/workspaces-cli.module.js';

/**
 * The admin CLI (nest-commander): each domain's commands come from its own `<domain>-cli.module.ts`,
 * which imports the domain module whose services the commands use. No Redis, no queues, no HTTP.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({ useFactory: () => nestDataSourceOptions() }),
    LifecycleModule,
    DatabaseCliModule,
    OrganizationsCliModule,
    WorkspacesCliModule,
    ApiKeysCliModule,
    InboxesCliModule,
    ImportsCliModule,
    SendingCliModule,
    SecretsCliModule,
  ],
  providers: [CommanderErrors],
})
export class CliModule {}
