/**
 * The Bull processor of imports, and the recovery path: when a worker starts it re-enqueues every
 * batch left queued or processing (its job may have died with a worker or with a flushed Redis),
 * and every IMPORT_SWEEP_MS (default 10 s) it re-enqueues batches still queued after
 * IMPORT_RECOVER_AFTER_MS (default 5 s): an enqueue lost while Redis was down or hanging. The
 * request answered 202 anyway (the batch is staged in PostgreSQL); this is what runs it.
 */
import { OnQueueFailed, Process, Processor } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Job } from 'bull';
import { logger } from '../../../common/logging/logger.js';
import { Draining } from '../../../common/lifecycle/draining.js';
import { QueueName } from '../../../common/queue/queues.js';
import { ImportQueue, IMPORT_JOB_ATTEMPTS, RUN_IMPORT_JOB, type RunImportPayload } from '../import-queue.js';
import { ImportRunner } from '../import-runner.js';
import { ImportsService } from '../imports.service.js';

const SWEEP_MS = Math.max(100, Number(process.env.IMPORT_SWEEP_MS) || 10_000);
const RECOVER_AFTER_MS = Math.max(0, Number(process.env.IMPORT_RECOVER_AFTER_MS ?? '') || 5_000);
/** A recovery pass that Redis holds up longer than this is abandoned (the next sweep tries again). */
const RECOVERY_DEADLINE_MS = 30_000;

@Processor(QueueName.Imports)
@Injectable()
export class RunImportJob {
  /** How often the recovery loop (worker registry: `import-recovery`) runs. */
  readonly sweepMs = SWEEP_MS;
  /** A batch still queued this long after its request lost its enqueue. */
  readonly recoverAfterMs = RECOVER_AFTER_MS;
  private recovering = false;

  constructor(
    private readonly runner: ImportRunner,
    private readonly imports: ImportsService,
    private readonly queue: ImportQueue,
    private readonly draining: Draining,
  ) {}

  @Process(RUN_IMPORT_JOB)
  async handle(job: Job<RunImportPayload>): Promise<{ outcome: string }> {
    const outcome = await this.runner.run(job.data.importId);
    if (outcome === 'interrupted' && this.draining.active) {
      // Stopped between chunks by a shutdown: hand the rest to another worker now (a new job next to
      // this one, which completes), instead of waiting for a worker to start and recover it.
      await this.queue.enqueue(job.data, true).catch((err: unknown) => {
        logger.warn(
          { err, importId: job.data.importId },
          'interrupted import not re-enqueued; recovery will',
        );
      });
    }
    return { outcome };
  }

  @OnQueueFailed()
  async onFailed(job: Job<RunImportPayload>, err: Error): Promise<void> {
    logger.error({ err, importId: job.data.importId, attempt: job.attemptsMade }, 'import job failed');
    if (job.name !== RUN_IMPORT_JOB || job.attemptsMade < (job.opts.attempts ?? IMPORT_JOB_ATTEMPTS)) return;
    try {
      await this.imports.markFailed(job.data.importId, 'processing_error');
    } catch (e) {
      // An event handler must never reject (that would crash the process); recovery retries later.
      logger.error({ err: e, importId: job.data.importId }, 'could not mark the import failed');
    }
  }

  /**
   * Re-enqueues unfinished imports: all of them (`queuedForMs` unset, at start), or those still
   * queued after `queuedForMs`. Bounded by a deadline, so a hung Redis cannot hold the loop.
   */
  async recover(queuedForMs?: number): Promise<void> {
    if (this.recovering) return;
    this.recovering = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('import recovery timed out (Redis?)')), RECOVERY_DEADLINE_MS);
    });
    try {
      await Promise.race([this.recoverPass(queuedForMs), deadline]);
    } catch (err) {
      logger.error({ err }, 'import recovery failed');
    } finally {
      clearTimeout(timer);
      this.recovering = false;
    }
  }

  private async recoverPass(queuedForMs?: number): Promise<void> {
    const pending = await this.imports.unfinished(queuedForMs);
    for (const p of pending) await this.queue.enqueue({ importId: p.id, workspaceId: p.workspaceId }, true);
    if (pending.length) logger.info({ imports: pending.map((p) => p.id) }, 'imports re-enqueued');
  }
}
