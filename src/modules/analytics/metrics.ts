/**
 * Bumping counters from any module: inject `MetricCounters` (exported by the analytics module) and call
 * it inside the transaction that records the fact, with its manager. The SQL is in
 * analytics.repository.ts. `sent`, `replied`, `bounced` and `unsubscribed` are also counted per
 * subsequence, step and variant (`bumpStep`, next to the daily bump of the same fact), so the step rows of a campaign add up
 * to its daily totals.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  DailyMetricCountersRepository,
  StepMetricCountersRepository,
  type MetricName,
  type StepAttribution,
  type StepMetricBump,
  type StepMetricName,
} from './analytics.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export type { MetricName, StepAttribution, StepMetricBump, StepMetricName };

@Injectable()
export class MetricCounters {
  constructor(
    private readonly daily: DailyMetricCountersRepository,
    private readonly steps: StepMetricCountersRepository,
  ) {}

  /** `by` more `metric` on the campaign's daily row of `at`'s UTC day. */
  bump(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    campaignId: number,
    metric: MetricName,
    by = 1,
    at: Date = new Date(),
  ): Promise<void> {
    return this.daily.bump(workspaceId, campaignId, metric, manager, by, at);
  }

  /**
   * One more `metric` for the step and variant of the message `to` names (a message; or the last one
   * sent in a thread or an enrollment: where a reply or an unsubscribe is counted).
   */
  bumpStep(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    campaignId: number,
    metric: StepMetricName,
    to: StepAttribution,
    at: Date = new Date(),
    by = 1,
  ): Promise<void> {
    return this.steps.bumpAttributed(workspaceId, campaignId, metric, to, at, manager, by);
  }

  /**
   * One address-gate skip (CONTRACT §24) of step `step.position` of the campaign's own sequence
   * (`step.subsequenceId` null) or of one of its subsequences.
   */
  bumpStepAt(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    campaignId: number,
    metric: 'skipped_invalid' | 'skipped_risky',
    step: { subsequenceId: number | null; position: number },
    at: Date = new Date(),
  ): Promise<void> {
    return this.steps.bumpSkip(workspaceId, campaignId, metric, step, at, manager);
  }

  /** Step counters of many facts at once (the send path's groups: one statement per group). */
  bumpSteps(manager: EntityManager, bumps: StepMetricBump[]): Promise<void> {
    return this.steps.bumpManyAcrossWorkspaces(bumps, manager);
  }
}
