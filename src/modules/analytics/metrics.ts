/**
 * Bumping a daily counter. Call inside the transaction that records the fact, with its manager.
 */
import type { EntityManager } from 'typeorm';

export type MetricName =
  'sent' | 'replied' | 'auto_replied' | 'bounced' | 'unsubscribed' | 'enrolled' | 'completed';

const COLUMNS: Record<MetricName, string> = {
  sent: 'sent',
  replied: 'replied',
  auto_replied: 'auto_replied',
  bounced: 'bounced',
  unsubscribed: 'unsubscribed',
  enrolled: 'enrolled',
  completed: 'completed',
};

export async function bumpMetric(
  manager: EntityManager,
  workspaceId: string,
  campaignId: number,
  metric: MetricName,
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
