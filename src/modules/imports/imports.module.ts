import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { QueueName } from '../../common/queue/queues.js';
import { workerProviders } from '../../common/queue/worker-providers.js';
import { ImportQueue } from './import-queue.js';
import { ImportRunner } from './import-runner.js';
import { ImportsController } from './imports.controller.js';
import { ImportsRepository } from './imports.repository.js';
import { ImportsService } from './imports.service.js';
import { RunImportJob } from './jobs/run-import.job.js';

/** Bulk contact imports: staged in PostgreSQL, run in checkpointed chunks by Bull workers. */
@Module({
  imports: [BullModule.registerQueue({ name: QueueName.Imports })],
  controllers: [ImportsController],
  providers: [ImportsRepository, ImportsService, ImportRunner, ImportQueue, ...workerProviders(RunImportJob)],
  exports: [ImportsService, ImportRunner],
})
export class ImportsModule {}
