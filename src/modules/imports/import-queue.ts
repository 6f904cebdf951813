/** Enqueueing import jobs on Bull (QueueName.Imports); the batch itself is durable in PostgreSQL. */
import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { logger } from '../../common/logging/logger.js';
import { QueueName } from '../../common/queue/queues.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export const RUN_IMPORT_JOB = 'run-import';
export const IMPORT_JOB_ATTEMPTS = 5;
/** How long a request waits for Redis to take the job before answering 202 anyway. */
const ENQUEUE_WAIT_MS = 1000;

export interface RunImportPayload {
  workspaceId: WorkspaceId;
  importId: number;
}

@Injectable()
export class ImportQueue {
  constructor(@InjectQueue(QueueName.Imports) private readonly queue: Queue<RunImportPayload>) {}

  /**
   * jobId = import id, so a repeated enqueue of a live job is a no-op (Bull deduplicates by job id).
   * `recovery`: a job that is missing (a lost enqueue, a flushed Redis) is added under the import id
   * again; a finished one is removed and re-added under that id; one still active (perhaps on a dead
   * worker) gets a fresh id next to it: running a batch twice at once is safe (each chunk locks the
   * batch row and starts at the committed checkpoint).
   */
  async enqueue(payload: RunImportPayload, recovery = false): Promise<void> {
    let jobId = String(payload.importId);
    if (recovery) {
      const existing = await this.queue.getJob(jobId);
      const state = existing ? await existing.getState() : null;
      if (state === 'waiting' || state === 'delayed' || state === 'paused') return;
      if (existing && (state === 'completed' || state === 'failed')) await existing.remove();
      else if (existing) jobId = `${payload.importId}:recovered:${Date.now()}`;
    }
    await this.queue.add(RUN_IMPORT_JOB, payload, {
      jobId,
      attempts: IMPORT_JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: 1000,
      removeOnFail: 5000,
    });
  }

  /**
   * After a commit. Never holds the request hostage to Redis: after ENQUEUE_WAIT_MS the answer goes
   * out anyway (ioredis keeps the command queued until it reconnects). A lost enqueue only delays
   * the batch until a worker's sweep or start picks it up (it stays `queued` in PostgreSQL).
   */
  async enqueueAfterCommit(payload: RunImportPayload): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ENQUEUE_WAIT_MS);
    });
    try {
      const outcome = await Promise.race([this.enqueue(payload).then(() => 'ok' as const), timeout]);
      if (outcome === 'timeout')
        logger.warn({ importId: payload.importId }, 'import enqueue is slow (Redis?)');
    } catch (err) {
      logger.error({ err, importId: payload.importId }, 'could not enqueue import; recovery will pick it up');
    } finally {
      clearTimeout(timer);
    }
  }
}
