import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { QueueName } from '../../common/queue/queues.js';
import { workerProviders } from '../../common/queue/worker-providers.js';
import { ImportQueue } from './import-queue.js';
import { ImportsController } from './imports.controller.js';
import { ImportsCoreModule } from './imports-core.module.js';
import { RunImportJob } from './jobs/run-import.job.js';

/** Bulk contact imports: staged in PostgreSQL, run in checkpointed chunks by Bull workers. */
@Module({
  imports: [ImportsCoreModule, BullModule.registerQueue({ name: QueueName.Imports })],
  controllers: [ImportsController],
  providers: [ImportQueue, ...workerProviders(RunImportJob)],
  exports: [ImportsCoreModule],
})
export class ImportsModule {}
