import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CONTACTS_COMMANDS } from './modules/contacts/commands/index.js';
import { SUPPRESSIONS_COMMANDS } from './modules/suppressions/commands/index.js';
import { SEQUENCES_COMMANDS } from './modules/sequences/commands/index.js';
import { CAMPAIGNS_COMMANDS } from './modules/campaigns/commands/index.js';
import { ENROLLMENTS_COMMANDS } from './modules/enrollments/commands/index.js';
import { INBOXES_COMMANDS } from './modules/inboxes/commands/index.js';
import { THREADS_COMMANDS } from './modules/threads/commands/index.js';
import { ANALYTICS_COMMANDS } from './modules/analytics/commands/index.js';
import { WEBHOOKS_COMMANDS } from './modules/webhooks/commands/index.js';
import { IMPORTS_COMMANDS } from './modules/imports/commands/index.js';
import { SENDING_COMMANDS } from './modules/sending/commands/index.js';
import { MigrateCommand } from './database/commands/migrate.command.js';
import { SecretsReencryptCommand } from './common/crypto/commands/secrets-reencrypt.command.js';
import { dataSourceOptions } from './database/data-source.js';
import { ApiKeysModule } from './modules/api-keys/api-keys.module.js';
import {
  KeyCreateCommand,
  KeyListCommand,
  KeyRevokeCommand,
  KeyRotateCommand,
} from './modules/api-keys/commands/key.commands.js';
import { OrgCreateCommand, PlanSetCommand } from './modules/organizations/commands/org.commands.js';
import { OrganizationsModule } from './modules/organizations/organizations.module.js';
import { WorkspaceCreateCommand } from './modules/workspaces/commands/workspace-create.command.js';
import { WorkspacesModule } from './modules/workspaces/workspaces.module.js';

/** Modules the CLI needs, one line each. */
export const CLI_MODULES: Array<Type<unknown> | DynamicModule> = [
  OrganizationsModule,
  WorkspacesModule,
  ApiKeysModule,
];

/** Commands, one line each. */
export const CLI_COMMANDS: Array<Type<unknown>> = [
  MigrateCommand,
  OrgCreateCommand,
  PlanSetCommand,
  WorkspaceCreateCommand,
  KeyCreateCommand,
  KeyListCommand,
  KeyRotateCommand,
  KeyRevokeCommand,
  ...CONTACTS_COMMANDS,
  ...SUPPRESSIONS_COMMANDS,
  ...SEQUENCES_COMMANDS,
  ...CAMPAIGNS_COMMANDS,
  ...ENROLLMENTS_COMMANDS,
  ...INBOXES_COMMANDS,
  ...THREADS_COMMANDS,
  ...ANALYTICS_COMMANDS,
  ...WEBHOOKS_COMMANDS,
  ...IMPORTS_COMMANDS,
  ...SENDING_COMMANDS,
  SecretsReencryptCommand,
];

@Module({
  imports: [TypeOrmModule.forRootAsync({ useFactory: () => dataSourceOptions() }), ...CLI_MODULES],
  providers: CLI_COMMANDS,
})
export class CliModule {}
