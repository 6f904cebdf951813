import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces.module.js';
import { WorkspaceCreateCommand } from './workspace-create.command.js';

/** `workspace:create`. */
@Module({ imports: [WorkspacesModule], providers: [WorkspaceCreateCommand] })
export class WorkspacesCliModule {}
