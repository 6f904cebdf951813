import { Module } from '@nestjs/common';
import { MigrateCommand } from './migrate.command.js';

/** `migrate`. */
@Module({ providers: [MigrateCommand] })
export class DatabaseCliModule {}
