/**
 * Bumping a daily counter from any module: call inside the transaction that records the fact, with
 * its manager. The SQL is in analytics.repository.ts.
 */
import type { EntityManager } from 'typeorm';
import { DailyMetricCountersRepository, type MetricName } from './analytics.repository.js';

export type { MetricName };

const counters = new DailyMetricCountersRepository();

export function bumpMetric(
  manager: EntityManager,
  workspaceId: string,
  campaignId: number,
  metric: MetricName,
  by = 1,
  at: Date = new Date(),
): Promise<void> {
  return counters.bump(workspaceId, campaignId, metric, manager, by, at);
}
