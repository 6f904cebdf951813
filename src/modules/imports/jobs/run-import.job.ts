/**
 * The Bull processor of imports, and the recovery path: when a worker starts it re-enqueues every
 * batch left queued or processing (its job may have died with a worker or with a flushed Redis).
 */
import { OnQueueFailed, Process, Processor } from '@nestjs/bull';
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bull';
import { logger } from '../../../common/logging/logger.js';
import { QueueName } from '../../../common/queue/queues.js';
import { ImportQueue, IMPORT_JOB_ATTEMPTS, RUN_IMPORT_JOB, type RunImportPayload } from '../import-queue.js';
import { ImportRunner } from '../import-runner.js';
import { ImportsService } from '../imports.service.js';

@Processor(QueueName.Imports)
@Injectable()
export class RunImportJob implements OnApplicationBootstrap {
  constructor(
    private readonly runner: ImportRunner,
    private readonly imports: ImportsService,
    private readonly queue: ImportQueue,
  ) {}

  @Process(RUN_IMPORT_JOB)
  async handle(job: Job<RunImportPayload>): Promise<{ outcome: string }> {
    const outcome = await this.runner.run(job.data.importId);
    return { outcome };
  }

  @OnQueueFailed()
  async onFailed(job: Job<RunImportPayload>, err: Error): Promise<void> {
    logger.error({ err, importId: job.data.importId, attempt: job.attemptsMade }, 'import job failed');
    if (job.name === RUN_IMPORT_JOB && job.attemptsMade >= (job.opts.attempts ?? IMPORT_JOB_ATTEMPTS)) {
      await this.imports.markFailed(job.data.importId, 'processing_error');
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      const pending = await this.imports.unfinished();
      for (const p of pending) await this.queue.enqueue({ importId: p.id, workspaceId: p.workspaceId }, true);
      if (pending.length) logger.info({ imports: pending.map((p) => p.id) }, 'imports re-enqueued');
    } catch (err) {
      logger.error({ err }, 'import recovery failed');
    }
  }
}
