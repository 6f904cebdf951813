import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContactsModule } from '../contacts/contacts.module.js';
import { EventsModule } from '../events/events.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { ImportBatch } from './entities/import-batch.entity.js';
import { ImportRow } from './entities/import-row.entity.js';
import { ImportRowsRepository } from './import-rows.repository.js';
import { ImportRunner } from './import-runner.js';
import { ImportsRepository } from './imports.repository.js';
import { ImportsService } from './imports.service.js';

/**
 * Imports without their queue: staging, validation and the chunked runner. The HTTP module adds the
 * Bull queue and its job on top; the CLI's `import` command uses this alone (it runs without Redis).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ImportBatch, ImportRow]),
    ContactsModule,
    SuppressionsModule,
    EventsModule,
  ],
  providers: [ImportsRepository, ImportRowsRepository, ImportsService, ImportRunner],
  exports: [ImportsRepository, ImportRowsRepository, ImportsService, ImportRunner],
})
export class ImportsCoreModule {}
