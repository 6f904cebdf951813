/**
 * Everything that runs in the background, in one list: the timer loops, the Bull jobs and their
 * queues (all run by worker processes; see Roles below). `WorkerRunner` starts and stops the loops
 * from this list; `checkWorkerRegistry` (run at start-up and by a test) fails fast when a declared
 * job has no handler or a queue name is declared without a job.
 *
 * Roles: `APP_ROLE=all` runs the API and everything here; `worker` runs everything here; `api` runs
 * none of it (it only enqueues). Every worker process runs every loop: claims use leases and
 * `SKIP LOCKED`, capacity is reserved atomically, so any number of processes is safe.
 *
 * Why timer loops and not Bull repeatable jobs: each pass is already a bounded, idempotent unit of
 * work that any process may run at any time, with its state in PostgreSQL; a queue would add a second
 * source of truth without adding a guarantee. Bull is used where a unit of work is requested by an
 * API call and must survive until some worker takes it (an import).
 */
import type { Type } from '@nestjs/common';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { logger } from '../common/logging/logger.js';
import { IdempotencySweeper } from '../common/idempotency/idempotency-sweeper.js';
import { QueueName } from '../common/queue/queues.js';
import { ImapConnections } from '../modules/inbound/imap-connections.service.js';
import { ApiMailboxes } from '../modules/inbound/api-mailboxes.service.js';
import { RUN_IMPORT_JOB } from '../modules/imports/import-queue.js';
import { ImportsService } from '../modules/imports/imports.service.js';
import { RunImportJob } from '../modules/imports/jobs/run-import.job.js';
import { EventRetentionService } from '../modules/webhooks/event-retention.service.js';
import { CLAIM_BATCH, SendEngine } from '../modules/sending/send-engine.service.js';
import { MessageRetentionService } from '../modules/threads/message-retention.service.js';
import { WebhookDeliveryWorker } from '../modules/webhooks/webhook-delivery.worker.js';
import { WebhookDispatcher } from '../modules/webhooks/webhook-dispatcher.js';
import { ManualReplySweeper } from '../modules/sending/manual/manual-reply-sweeper.js';
import {
  ReplyAiCategorizer,
  ReplyCategorizer,
} from '../modules/reply-categories/reply-categorizer.service.js';
import { VerificationService } from '../modules/verification/verification.service.js';

/** A service that owns its loop's wake-ups (LISTEN/NOTIFY, hand-offs) receives the loop. */
export interface LoopOwner {
  bindLoop(loop: { wake(): void }): void;
}

export interface LoopSpec<S = unknown> {
  name: string;
  /** The provider whose method does one pass (resolved from the application). */
  provider: Type<S>;
  /** Builds the pass for one process (a closure may keep per-process state, e.g. "first pass"). */
  pass: (service: S) => () => Promise<boolean>;
  intervalMs: (config: AppConfig, service: S) => number;
  firstDelayMs: (config: AppConfig, service: S) => number;
  /** Log message when a pass throws. */
  errorMessage: string;
}

export interface JobSpec {
  queue: QueueName;
  name: string;
  /** The @Processor class whose @Process(name) method handles the job. */
  processor: Type<unknown>;
}

const spec = <S>(s: LoopSpec<S>): LoopSpec => s as LoopSpec;

const HOUR_MS = 60 * 60 * 1000;

export const LOOPS: LoopSpec[] = [
  spec({
    name: 'send',
    provider: SendEngine,
    pass: (engine) => async () => (await engine.tick()) >= CLAIM_BATCH,
    intervalMs: (c) => c.sendTickMs,
    firstDelayMs: (c) => Math.min(c.sendTickMs, 1000),
    errorMessage: 'send tick failed',
  }),
  spec({
    // Leases and connections of the mailboxes this worker reads (docs/mailboxes.md).
    name: 'imap-mailboxes',
    provider: ImapConnections,
    pass: (connections) => async () => {
      await connections.pass();
      return false;
    },
    intervalMs: (c) => ImapConnections.intervalMs(c),
    firstDelayMs: () => 0,
    errorMessage: 'IMAP mailbox leases not renewed',
  }),
  spec({
    // Leases and reader loops of the inboxes read through their provider's API (docs/provider-apis.md).
    name: 'api-mailboxes',
    provider: ApiMailboxes,
    pass: (mailboxes) => async () => {
      await mailboxes.pass();
      return false;
    },
    intervalMs: (c) => ApiMailboxes.intervalMs(c),
    firstDelayMs: () => 0,
    errorMessage: 'API mailbox leases not renewed',
  }),
  spec({
    name: 'message-retention',
    provider: MessageRetentionService,
    pass: (retention) => async () => {
      const purged = await retention.purgeExpiredBodies();
      if (purged) logger.info({ purged }, 'retention: message bodies purged');
      return false;
    },
    intervalMs: () => HOUR_MS,
    firstDelayMs: () => 60_000,
    errorMessage: 'message body retention failed',
  }),
  spec({
    name: 'manual-reply-sweep',
    provider: ManualReplySweeper,
    pass: (sweeper) => () => sweeper.sweepOnce(),
    intervalMs: (_, sweeper) => sweeper.intervalMs,
    firstDelayMs: () => 20_000,
    errorMessage: 'manual replies left sending not swept',
  }),
  spec({
    name: 'reply-categorize',
    provider: ReplyCategorizer,
    pass: (categorizer) => () => categorizer.sweepOnce(),
    intervalMs: (_, categorizer) => categorizer.intervalMs,
    firstDelayMs: () => 1_000,
    errorMessage: 'replies not categorised',
  }),
  spec({
    name: 'reply-categorize-ai',
    provider: ReplyAiCategorizer,
    pass: (categorizer) => () => categorizer.sweepOnce(),
    intervalMs: (_, categorizer) => categorizer.intervalMs,
    firstDelayMs: () => 1_500,
    errorMessage: 'replies not categorised by their AI provider',
  }),
  spec({
    // Address verdicts of new contacts (after their insert commits, never inside an import's
    // transaction), `unknown` ones again later, and re-checks asked through the API (CONTRACT §24).
    name: 'contact-verification',
    provider: VerificationService,
    // VERIFY_ADDRESSES=false (no usable DNS): nothing is checked in the background.
    pass: (verification) => () =>
      appConfig().verifyAddresses ? verification.pass() : Promise.resolve(false),
    intervalMs: () => 2_000,
    firstDelayMs: () => 1_000,
    errorMessage: 'contact verification pass failed',
  }),
  spec({
    name: 'idempotency-sweep',
    provider: IdempotencySweeper,
    pass: (sweeper) => () => sweeper.sweepOnce(),
    intervalMs: (_, sweeper) => sweeper.intervalMs,
    firstDelayMs: () => 1000,
    errorMessage: 'could not sweep idempotency keys',
  }),
  spec({
    name: 'event-retention',
    provider: EventRetentionService,
    pass: (retention) => () => retention.sweepOnce(),
    intervalMs: (_, retention) => retention.intervalMs,
    firstDelayMs: () => 30_000,
    errorMessage: 'event retention failed',
  }),
  spec({
    name: 'import-rows-sweep',
    provider: ImportsService,
    pass: (imports) => () => imports.sweepStagedRows(),
    intervalMs: () => 60_000,
    firstDelayMs: () => 5_000,
    errorMessage: 'staged import rows not swept',
  }),
  spec({
    name: 'import-recovery',
    provider: RunImportJob,
    pass: (job) => {
      // The first pass after start re-enqueues every unfinished import; later ones only those still
      // queued for a while (an enqueue lost while Redis was away).
      let first = true;
      return async () => {
        await job.recover(first ? undefined : job.recoverAfterMs);
        first = false;
        return false;
      };
    },
    intervalMs: (_, job) => job.sweepMs,
    firstDelayMs: () => 0,
    errorMessage: 'import recovery failed',
  }),
  spec({
    name: 'webhook-dispatch',
    provider: WebhookDispatcher,
    pass: (dispatcher) => () => dispatcher.pass(),
    intervalMs: (_, dispatcher) => dispatcher.pollMs,
    firstDelayMs: () => 0,
    errorMessage: 'webhook dispatcher pass failed',
  }),
  spec({
    name: 'webhook-delivery',
    provider: WebhookDeliveryWorker,
    pass: (worker) => () => worker.pass(),
    intervalMs: (_, worker) => worker.pollMs,
    firstDelayMs: () => 0,
    errorMessage: 'webhook delivery claim failed',
  }),
];

export const JOBS: JobSpec[] = [{ queue: QueueName.Imports, name: RUN_IMPORT_JOB, processor: RunImportJob }];
