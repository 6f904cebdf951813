/**
 * Daily counters per workspace, UTC day and campaign, written by `MetricCounters.bump` in the
 * transactions of the facts they count. Only days with activity have a row (no zero filling).
 */
import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/http/api-error.js';
import type { Page } from '../../common/http/pagination.js';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DailyMetricsRepository, StepMetricCountersRepository } from './analytics.repository.js';
import type { StepMetricsQueryDto, StepMetricView } from './dto/step-metrics.dto.js';
import type { DailyMetricsQueryDto, DailyMetricView } from './dto/daily-metrics.dto.js';
import type { DailyMetric } from './entities/daily-metric.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export const DEFAULT_RANGE_DAYS = 30;

const DAY_MS = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The inclusive `[from, to]` UTC range: defaults to the last 30 days ending today (or at `to`). */
export function dayRange(
  query: { from?: string; to?: string },
  now = new Date(),
): { from: string; to: string } {
  const to = query.to ?? dayOf(now.getTime());
  const from = query.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS);
  if (from > to) throw ApiError.validation('from', 'from must be on or before to');
  return { from, to };
}

export const toDailyMetricView = (m: DailyMetric): DailyMetricView => ({
  date: typeof m.date === 'string' ? m.date : dayOf((m.date as Date).getTime()),
  campaign_id: m.campaignId,
  sent: m.sent,
  replied: m.replied,
  interested: m.interested,
  auto_replied: m.autoReplied,
  bounced: m.bounced,
  soft_bounced: m.softBounced,
  complained: m.complained,
  unsubscribed: m.unsubscribed,
  enrolled: m.enrolled,
  completed: m.completed,
});

@Injectable()
export class AnalyticsService {
  constructor(
    private readonly metrics: DailyMetricsRepository,
    private readonly stepMetrics: StepMetricCountersRepository,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /**
   * A campaign's counters per subsequence, step and variant over UTC days (the same range rules as
   * `daily`): one row per step and variant with any activity, the campaign's own steps first
   * (`subsequence_id` null), then each subsequence's, in step then variant order. They add up to the
   * campaign's daily totals of the same days (without a `subsequence_id` filter).
   */
  async steps(workspaceId: WorkspaceId, query: StepMetricsQueryDto): Promise<Page<StepMetricView>> {
    const range = dayRange(query);
    const found = await this.stepMetrics.sumsOfCampaign(
      workspaceId,
      query.campaign_id,
      { ...range, subsequenceId: query.subsequence_id },
      this.db.manager,
    );
    const items = found.map((r) => ({
      campaign_id: Number(r.campaign_id),
      subsequence_id: Number(r.subsequence_id) === 0 ? null : Number(r.subsequence_id),
      step_position: r.step_position === 0 ? null : r.step_position,
      variant: r.variant === '' ? null : r.variant,
      sent: r.sent,
      replied: r.replied,
      interested: r.interested,
      bounced: r.bounced,
      soft_bounced: r.soft_bounced,
      unsubscribed: r.unsubscribed,
      skipped_invalid: r.skipped_invalid,
      skipped_risky: r.skipped_risky,
    }));
    // Every row in one page: at most 50 steps × 5 variants for the campaign and each of its (at most
    // 10) subsequences, and a sum is not a keyset to page over.
    return { items, nextCursor: null, prevCursor: null, perPage: items.length };
  }

  daily(workspaceId: WorkspaceId, query: DailyMetricsQueryDto): Promise<Page<DailyMetric>> {
    const { from, to } = dayRange(query);
    return this.metrics.page(workspaceId, query, { from, to, campaignId: query.campaign_id });
  }
}
