/**
 * Renders the process's metrics for a scrape: first the gauges read at scrape time (PostgreSQL:
 * due-enrollment lag and outbox backlog; Redis: Bull queue depths), each bounded by a timeout so a
 * slow dependency makes its gauge NaN instead of failing the scrape, then the registry's text.
 */
import { getQueueToken } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { timingSafeEqual, createHash } from 'node:crypto';
import { logger } from '../../common/logging/logger.js';
import { metrics, registry } from '../../common/metrics/metrics.js';
import { QueueName } from '../../common/queue/queues.js';
import { appConfig } from '../../config/app-config.js';
import { MetricsRepository } from './metrics.repository.js';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
const REDIS_TIMEOUT_MS = 2000;

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

@Injectable()
export class MetricsService {
  constructor(
    private readonly repository: MetricsRepository,
    private readonly moduleRef: ModuleRef,
  ) {}

  readonly contentType = registry.contentType;

  /**
   * True when no METRICS_TOKEN is set, or the header is `Bearer <METRICS_TOKEN>` (compared in
   * constant time, through digests so the lengths do not leak either).
   */
  authorized(header: string | undefined): boolean {
    const token = appConfig().metricsToken;
    if (!token) return true;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    return m !== null && timingSafeEqual(digest(m[1]), digest(token));
  }

  /** The metrics text, gauges refreshed. */
  async render(): Promise<string> {
    await Promise.all([this.refreshDatabaseGauges(), this.refreshQueueGauges()]);
    return registry.metrics();
  }

  private async refreshDatabaseGauges(): Promise<void> {
    const m = metrics();
    try {
      const g = await this.repository.gaugesAcrossWorkspaces();
      m.dueLag.set(g.dueLagSeconds);
      m.outboxBacklog.set(g.outboxBacklog);
      m.outboxOldest.set(g.outboxOldestSeconds);
    } catch (err) {
      logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'metrics: database gauges unavailable',
      );
      for (const gauge of [m.dueLag, m.outboxBacklog, m.outboxOldest]) gauge.set(NaN);
    }
  }

  private async refreshQueueGauges(): Promise<void> {
    const gauge = metrics().queueJobs;
    await Promise.all(
      Object.values(QueueName).map(async (name) => {
        let queue: Queue;
        try {
          queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
        } catch {
          return; // not registered in this process
        }
        try {
          const counts = (await within(
            queue.getJobCounts(),
            REDIS_TIMEOUT_MS,
            'queue counts',
          )) as unknown as Record<string, number>;
          for (const state of QUEUE_STATES) gauge.set({ queue: name, state }, Number(counts[state] ?? 0));
        } catch (err) {
          logger.warn(
            { queue: name, err: err instanceof Error ? err.message : String(err) },
            'metrics: queue depth unavailable',
          );
          for (const state of QUEUE_STATES) gauge.set({ queue: name, state }, NaN);
        }
      }),
    );
  }
}
