import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations.module.js';
import { OrgCreateCommand, PlanSetCommand } from './org.commands.js';

/** `org:create`, `plan:set`. */
@Module({ imports: [OrganizationsModule], providers: [OrgCreateCommand, PlanSetCommand] })
export class OrganizationsCliModule {}
