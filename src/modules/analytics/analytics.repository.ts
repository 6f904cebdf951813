import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { DailyMetric } from './entities/daily-metric.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import { rows } from '../../database/query-rows.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class DailyMetricsRepository extends TenantRepository<DailyMetric> {
  constructor(@InjectRepository(DailyMetric) repo: Repository<DailyMetric>) {
    super(repo);
  }

  /** A page of daily rows between two dates (inclusive), optionally of one campaign. */
  page(
    workspaceId: WorkspaceId,
    query: PageQueryDto,
    filter: { from: string; to: string; campaignId?: number },
  ): Promise<Page<DailyMetric>> {
    const qb = this.query(workspaceId, 'm').andWhere('m.date BETWEEN :from::date AND :to::date', {
      from: filter.from,
      to: filter.to,
    });
    if (filter.campaignId !== undefined)
      qb.andWhere('m.campaignId = :campaignId', { campaignId: filter.campaignId });
    return paginate(qb, 'm', query, { tenant: workspaceId, route: 'analytics.daily' });
  }
}

export type MetricName =
  | 'sent'
  | 'replied'
  | 'interested'
  | 'auto_replied'
  | 'bounced'
  | 'soft_bounced'
  | 'complained'
  | 'unsubscribed'
  | 'enrolled'
  | 'completed';

const COLUMNS: Record<MetricName, string> = {
  sent: 'sent',
  replied: 'replied',
  interested: 'interested',
  auto_replied: 'auto_replied',
  bounced: 'bounced',
  soft_bounced: 'soft_bounced',
  complained: 'complained',
  unsubscribed: 'unsubscribed',
  enrolled: 'enrolled',
  completed: 'completed',
};

/**
 * Daily counters, bumped inside the transaction that records the fact they count (pass its
 * manager). Stateless: every method takes the manager. Other modules reach it through `MetricCounters`.
 */
@Injectable()
export class DailyMetricCountersRepository {
  async bump(
    workspaceId: WorkspaceId,
    campaignId: number,
    metric: MetricName,
    manager: EntityManager,
    by = 1,
    at: Date = new Date(),
  ): Promise<void> {
    const column = COLUMNS[metric];
    await manager.query(
      `INSERT INTO daily_metrics (workspace_id, date, campaign_id, ${column})
       VALUES ($1, ($4::timestamptz AT TIME ZONE 'UTC')::date, $2, $3)
       ON CONFLICT (workspace_id, date, campaign_id) DO UPDATE SET ${column} = daily_metrics.${column} + EXCLUDED.${column}`,
      [workspaceId, campaignId, by, at.toISOString()],
    );
  }
}

/** What `step_metrics` counts (the daily counters of the same facts). */
export type StepMetricName = 'sent' | 'replied' | 'interested' | 'bounced' | 'soft_bounced' | 'unsubscribed';
/** What the send path counts in batches (bumpManyAcrossWorkspaces). */
type BatchedStepMetricName = Exclude<StepMetricName, 'soft_bounced' | 'interested'>;

const STEP_COLUMNS: Record<StepMetricName, string> = {
  sent: 'sent',
  replied: 'replied',
  interested: 'interested',
  bounced: 'bounced',
  soft_bounced: 'soft_bounced',
  unsubscribed: 'unsubscribed',
};

/** Which outbound message a fact is counted for: that message, or the last one sent in a thread or enrollment. */
export type StepAttribution = { messageId: number } | { threadId: number } | { enrollmentId: number };

/** One increment of a step counter (the send path's batch form). */
export interface StepMetricBump {
  workspaceId: WorkspaceId;
  campaignId: number;
  /** The subsequence of the enrollment the step was sent to; null: the campaign's own sequence. */
  subsequenceId: number | null;
  stepPosition: number;
  variant: string;
  metric: BatchedStepMetricName;
  by: number;
  at: Date;
}

/**
 * The counters per campaign, subsequence, step and variant over a range of UTC days: `subsequence_id`
 * 0 for the campaign's own sequence, `step_position` 0 / `variant` '' for unknown.
 */
export interface StepMetricRow {
  campaign_id: number;
  subsequence_id: number | string;
  step_position: number;
  variant: string;
  sent: number;
  replied: number;
  interested: number;
  bounced: number;
  soft_bounced: number;
  unsubscribed: number;
  skipped_invalid: number;
  skipped_risky: number;
}

/**
 * Counters per campaign, UTC day, subsequence, step and variant (`step_metrics`), bumped in the transaction of the
 * fact next to its `daily_metrics` increment, for the same campaign and day: the rows of a campaign
 * add up to its daily totals. Stateless, like DailyMetricCountersRepository.
 */
@Injectable()
export class StepMetricCountersRepository {
  /**
   * Several increments in one statement (the send path: one per finalised group, never one per send),
   * rows locked in a fixed order so that two workers' groups cannot deadlock.
   */
  async bumpManyAcrossWorkspaces(bumps: StepMetricBump[], manager: EntityManager): Promise<void> {
    // One input row per counter row (a row may not be updated twice by one statement), in key order.
    type Row = { b: StepMetricBump; day: string; by: Record<BatchedStepMetricName, number> };
    const merged = new Map<string, Row>();
    for (const b of bumps) {
      const day = b.at.toISOString().slice(0, 10);
      const key = `${b.workspaceId}|${b.campaignId}|${day}|${b.subsequenceId ?? 0}|${b.stepPosition}|${b.variant}`;
      let row = merged.get(key);
      if (!row) {
        row = { b, day, by: { sent: 0, replied: 0, bounced: 0, unsubscribed: 0 } };
        merged.set(key, row);
      }
      row.by[b.metric] += b.by;
    }
    const list = [...merged.keys()].sort().map((k) => merged.get(k)!);
    if (list.length === 0) return;
    const of = (metric: BatchedStepMetricName) => list.map((r) => r.by[metric]);
    await manager.query(
      `INSERT INTO step_metrics (workspace_id, campaign_id, date, subsequence_id, step_position, variant, sent, replied, bounced, unsubscribed)
       SELECT x.w, x.c, x.d, x.ss, x.p, x.v, x.s, x.r, x.b, x.u
       FROM unnest($1::uuid[], $2::bigint[], $3::date[], $4::int[], $5::text[], $6::int[], $7::int[], $8::int[], $9::int[], $10::bigint[])
         WITH ORDINALITY AS x(w, c, d, p, v, s, r, b, u, ss, n)
       ORDER BY x.n
       ON CONFLICT (workspace_id, campaign_id, date, subsequence_id, step_position, variant) DO UPDATE SET
         sent = step_metrics.sent + EXCLUDED.sent, replied = step_metrics.replied + EXCLUDED.replied,
         bounced = step_metrics.bounced + EXCLUDED.bounced, unsubscribed = step_metrics.unsubscribed + EXCLUDED.unsubscribed`,
      [
        list.map((r) => r.b.workspaceId),
        list.map((r) => r.b.campaignId),
        list.map((r) => r.day),
        list.map((r) => r.b.stepPosition),
        list.map((r) => r.b.variant),
        of('sent'),
        of('replied'),
        of('bounced'),
        of('unsubscribed'),
        list.map((r) => r.b.subsequenceId ?? 0),
      ],
    );
  }

  /**
   * One skip of the address gate, counted under the skipped step of the enrollment's sequence (its
   * subsequence's, else the campaign's own; no message, so variant '').
   */
  async bumpSkip(
    workspaceId: WorkspaceId,
    campaignId: number,
    metric: 'skipped_invalid' | 'skipped_risky',
    step: { subsequenceId: number | null; position: number },
    at: Date,
    manager: EntityManager,
  ): Promise<void> {
    const column = metric === 'skipped_invalid' ? 'skipped_invalid' : 'skipped_risky';
    await manager.query(
      `INSERT INTO step_metrics (workspace_id, campaign_id, date, subsequence_id, step_position, variant, ${column})
       VALUES ($1, $2, ($3::timestamptz AT TIME ZONE 'UTC')::date, $5, $4, '', 1)
       ON CONFLICT (workspace_id, campaign_id, date, subsequence_id, step_position, variant)
         DO UPDATE SET ${column} = step_metrics.${column} + 1`,
      [workspaceId, campaignId, at.toISOString(), step.position, step.subsequenceId ?? 0],
    );
  }

  /**
   * One increment for the subsequence, step and variant of the message the fact is attributed to (the
   * message itself, or the last one sent in the thread or enrollment; its subsequence is its
   * enrollment's). Always counts, under the campaign's step 0 / variant '' when no such message
   * exists, so the rows keep adding up to the daily totals. `by` -1 takes one back (a reply corrected
   * away from `interested`).
   */
  async bumpAttributed(
    workspaceId: WorkspaceId,
    campaignId: number,
    metric: StepMetricName,
    to: StepAttribution,
    at: Date,
    manager: EntityManager,
    by = 1,
  ): Promise<void> {
    const column = STEP_COLUMNS[metric];
    const [where, id] =
      'messageId' in to
        ? ['m.id = $5', to.messageId]
        : 'threadId' in to
          ? ['m.thread_id = $5', to.threadId]
          : ['m.enrollment_id = $5', to.enrollmentId];
    await manager.query(
      `INSERT INTO step_metrics (workspace_id, campaign_id, date, subsequence_id, step_position, variant, ${column})
       SELECT $1, $2, ($3::timestamptz AT TIME ZONE 'UTC')::date,
         coalesce(x.subsequence_id, 0), coalesce(x.step_position, 0), coalesce(x.variant, ''), $4
       FROM (SELECT 1) AS one LEFT JOIN LATERAL (
         SELECT m.step_position, m.variant,
           (SELECT e.subsequence_id FROM enrollments e
             WHERE e.workspace_id = m.workspace_id AND e.id = m.enrollment_id) AS subsequence_id
         FROM messages m
         WHERE m.workspace_id = $1 AND ${where} AND m.direction = 'outbound'
         ORDER BY m.sent_at DESC NULLS LAST, m.id DESC LIMIT 1) x ON true
       ON CONFLICT (workspace_id, campaign_id, date, subsequence_id, step_position, variant)
         DO UPDATE SET ${column} = step_metrics.${column} + EXCLUDED.${column}`,
      [workspaceId, campaignId, at.toISOString(), by, id],
    );
  }

  /**
   * A campaign's counters per subsequence, step and variant, summed over the UTC days `from`..`to`
   * (inclusive): its own steps first, then each subsequence's (by id). `subsequenceId`: only that
   * subsequence's rows.
   */
  sumsOfCampaign(
    workspaceId: WorkspaceId,
    campaignId: number,
    range: { from: string; to: string; subsequenceId?: number },
    manager: EntityManager,
  ): Promise<StepMetricRow[]> {
    return rows<StepMetricRow>(
      manager,
      `SELECT campaign_id, subsequence_id, step_position, variant, sum(sent)::int AS sent, sum(replied)::int AS replied,
         sum(interested)::int AS interested, sum(bounced)::int AS bounced, sum(soft_bounced)::int AS soft_bounced, sum(unsubscribed)::int AS unsubscribed,
         sum(skipped_invalid)::int AS skipped_invalid, sum(skipped_risky)::int AS skipped_risky
       FROM step_metrics
       WHERE workspace_id = $1 AND campaign_id = $2 AND date BETWEEN $3::date AND $4::date
         AND ($5::bigint IS NULL OR subsequence_id = $5)
       GROUP BY campaign_id, subsequence_id, step_position, variant
       ORDER BY subsequence_id, step_position, variant`,
      [workspaceId, campaignId, range.from, range.to, range.subsequenceId ?? null],
    );
  }
}
