import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/**
 * Counters per workspace, campaign, UTC day, subsequence, step and variant: `sent`, `replied`,
 * `bounced` and `unsubscribed`, bumped in the same transactions (and for the same facts) as
 * `daily_metrics`, so they add up to the campaign's daily totals. `subsequence_id` 0 is the campaign's
 * own sequence; `step_position` 0 and `variant` '' stand for "not known" (a fact whose thread has no
 * outbound message, or a message sent before variants existed); the API shows all three as null. Not
 * null so that the unique key (and ON CONFLICT) covers them.
 */
@Entity('step_metrics')
@Index(
  'uq_step_metrics_row',
  ['workspaceId', 'campaignId', 'date', 'subsequenceId', 'stepPosition', 'variant'],
  {
    unique: true,
  },
)
export class StepMetric {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'bigint' }) campaignId: number;
  @Column({ type: 'date' }) date: string;
  /** The subsequence whose step was sent (CONTRACT §23); 0: the campaign's own sequence. */
  @Column({ type: 'bigint', default: 0 }) subsequenceId: number;
  @Column({ type: 'integer' }) stepPosition: number;
  @Column({ type: 'text' }) variant: string;
  @Column({ type: 'integer', default: 0 }) sent: number;
  @Column({ type: 'integer', default: 0 }) replied: number;
  /** Replies categorised `interested` (CONTRACT §20), on the reply's day. */
  @Column({ type: 'integer', default: 0 }) interested: number;
  @Column({ type: 'integer', default: 0 }) bounced: number;
  /** Soft bounces (CONTRACT §18): not counted in `bounced`. */
  @Column({ type: 'integer', default: 0 }) softBounced: number;
  @Column({ type: 'integer', default: 0 }) unsubscribed: number;
  /** Enrollments ended `skipped` because the campaign's `verification` setting skips the address (§24). */
  @Column({ type: 'integer', default: 0 }) skippedInvalid: number;
  @Column({ type: 'integer', default: 0 }) skippedRisky: number;
}
