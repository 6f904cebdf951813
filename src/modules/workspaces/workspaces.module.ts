import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Workspace } from './entities/workspace.entity.js';
import { WorkspacesRepository } from './workspaces.repository.js';
import { WorkspacesService } from './workspaces.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Workspace])],
  providers: [WorkspacesRepository, WorkspacesService],
  exports: [WorkspacesRepository, WorkspacesService],
})
export class WorkspacesModule {}
