/** Enqueueing import jobs on Bull (QueueName.Imports); the batch itself is durable in PostgreSQL. */
import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { logger } from '../../common/logging/logger.js';
import { QueueName } from '../../common/queue/queues.js';

export const RUN_IMPORT_JOB = 'run-import';
export const IMPORT_JOB_ATTEMPTS = 5;

export interface RunImportPayload {
  workspaceId: string;
  importId: number;
}

@Injectable()
export class ImportQueue {
  constructor(@InjectQueue(QueueName.Imports) private readonly queue: Queue<RunImportPayload>) {}

  /**
   * jobId = import id, so a repeated enqueue of a live job is a no-op. `recovery` adds a fresh job id
   * when the original job is gone, finished or stuck on a dead worker: running a batch twice at once
   * is safe (each chunk locks the batch row and starts at the committed checkpoint).
   */
  async enqueue(payload: RunImportPayload, recovery = false): Promise<void> {
    let jobId = String(payload.importId);
    if (recovery) {
      const existing = await this.queue.getJob(jobId);
      const state = existing ? await existing.getState() : null;
      if (state === 'waiting' || state === 'delayed' || state === 'paused') return;
      jobId = `${payload.importId}:recovered:${Date.now()}`;
    }
    await this.queue.add(RUN_IMPORT_JOB, payload, {
      jobId,
      attempts: IMPORT_JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: 1000,
      removeOnFail: 5000,
    });
  }

  /** After a commit: a lost enqueue only delays the batch until the next worker start (recovery). */
  async enqueueAfterCommit(payload: RunImportPayload): Promise<void> {
    try {
      await this.enqueue(payload);
    } catch (err) {
      logger.error({ err, importId: payload.importId }, 'could not enqueue import; recovery will pick it up');
    }
  }
}
