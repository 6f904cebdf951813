/**
 * Renders the process's metrics for a scrape: first the gauges read from the dependencies
 * (PostgreSQL: due-enrollment lag and outbox backlog, one bounded statement; Redis: Bull queue
 * depths), each bounded by a timeout so a slow dependency makes its gauge NaN instead of failing the
 * scrape, then the registry's text.
 *
 * A scrape is rendered at most once a second (SCRAPE_MAX_AGE_MS), whatever the number of scrapers:
 * concurrent scrapes share one render, and a scrape within a second of the last render is answered
 * with its text. So scraping costs the database one bounded statement, Redis one count per queue and
 * the process one render per second at most, and cannot be used to slow the API (CONTRACT §21); what
 * a scrape shows is at most a second old (Prometheus scrapes every 15 s).
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
/** How old what a scrape shows may be. */
export const SCRAPE_MAX_AGE_MS = 1000;
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

  /** The last render: when it started, and its text (a promise shared by concurrent scrapes). */
  private last: { startedAt: number; text: Promise<string> } | undefined;

  /**
   * True when the header is `Bearer <METRICS_TOKEN>` (compared in constant time, through digests so
   * the lengths do not leak either); without METRICS_TOKEN, only when METRICS_PUBLIC=true.
   */
  authorized(header: string | undefined): boolean {
    const { metricsToken: token, metricsPublic } = appConfig();
    if (!token) return metricsPublic;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    return m !== null && timingSafeEqual(digest(m[1]), digest(token));
  }

  /** The metrics text, at most SCRAPE_MAX_AGE_MS old: the last render's, or a new one. */
  render(): Promise<string> {
    const now = Date.now();
    if (this.last && now - this.last.startedAt < SCRAPE_MAX_AGE_MS) return this.last.text;
    const text = this.renderNow();
    this.last = { startedAt: now, text };
    // A failed render is not reused.
    text.catch(() => {
      if (this.last?.text === text) this.last = undefined;
    });
    return text;
  }

  private async renderNow(): Promise<string> {
    metrics().gaugeReads.inc();
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
