import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MigrateCommand } from './database/commands/migrate.command.js';
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
];

@Module({
  imports: [TypeOrmModule.forRootAsync({ useFactory: () => dataSourceOptions() }), ...CLI_MODULES],
  providers: CLI_COMMANDS,
})
export class CliModule {}
