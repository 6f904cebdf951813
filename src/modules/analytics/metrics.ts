/**
 * Bumping a daily counter from any module: call inside the transaction that records the fact, with
 * its manager. The SQL is in analytics.repository.ts. `sent`, `replied`, `bounced` and `unsubscribed`
 * are also counted per step and variant (`bumpStepMetric`, next to the daily bump of the same fact),
 * so the step rows of a campaign add up to its daily totals.
 */
import type { EntityManager } from 'typeorm';
import {
  DailyMetricCountersRepository,
  StepMetricCountersRepository,
  type MetricName,
  type StepAttribution,
  type StepMetricBump,
  type StepMetricName,
} from './analytics.repository.js';

export type { MetricName, StepAttribution, StepMetricBump, StepMetricName };

const counters = new DailyMetricCountersRepository();
const stepCounters = new StepMetricCountersRepository();

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

/**
 * One more `metric` for the step and variant of the message `to` names (a message; or the last one
 * sent in a thread or an enrollment: where a reply or an unsubscribe is counted).
 */
export function bumpStepMetric(
  manager: EntityManager,
  workspaceId: string,
  campaignId: number,
  metric: StepMetricName,
  to: StepAttribution,
  at: Date = new Date(),
  by = 1,
): Promise<void> {
  return stepCounters.bumpAttributed(workspaceId, campaignId, metric, to, at, manager, by);
}

/** Step counters of many facts at once (the send path's groups: one statement per group). */
export function bumpStepMetrics(manager: EntityManager, bumps: StepMetricBump[]): Promise<void> {
  return stepCounters.bumpManyAcrossWorkspaces(bumps, manager);
}
