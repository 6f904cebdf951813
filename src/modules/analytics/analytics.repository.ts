import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { DailyMetric } from './entities/daily-metric.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';

@Injectable()
export class DailyMetricsRepository extends TenantRepository<DailyMetric> {
  constructor(@InjectRepository(DailyMetric) repo: Repository<DailyMetric>) {
    super(repo);
  }

  /** A page of daily rows between two dates (inclusive), optionally of one campaign. */
  page(
    workspaceId: string,
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
  'sent' | 'replied' | 'auto_replied' | 'bounced' | 'complained' | 'unsubscribed' | 'enrolled' | 'completed';

const COLUMNS: Record<MetricName, string> = {
  sent: 'sent',
  replied: 'replied',
  auto_replied: 'auto_replied',
  bounced: 'bounced',
  complained: 'complained',
  unsubscribed: 'unsubscribed',
  enrolled: 'enrolled',
  completed: 'completed',
};

/**
 * Daily counters, bumped inside the transaction that records the fact they count (pass its
 * manager). Stateless, so modules without DI (and the send path's batches) share one instance.
 */
@Injectable()
export class DailyMetricCountersRepository {
  async bump(
    workspaceId: string,
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
