import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp, UpdatedAt } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

export type CampaignStatus = 'draft' | 'active' | 'paused' | 'archived';
/** Why a paused campaign is paused: a PATCH (`manual`) or the service's bounce protection. */
export type PausedReason = 'manual' | 'bounce_rate';
/** Whose enrollments a reply stops: the replier's (`contact`) or every contact of the replier's domain. */
export type StopOnReplyScope = 'contact' | 'domain';
/** Which address verdicts (CONTRACT §24) the engine skips: invalid ones (default), risky ones too, or none. */
export const CAMPAIGN_VERIFICATION_SETTINGS = ['skip_invalid', 'skip_risky', 'off'] as const;
export type CampaignVerification = (typeof CAMPAIGN_VERIFICATION_SETTINGS)[number];
export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';

export interface CampaignSchedule {
  timezone: string;
  days: Weekday[];
  /** HH:MM in the campaign's timezone. */
  start_time: string;
  /** HH:MM, exclusive; may be 24:00. */
  end_time: string;
}

@Entity('campaigns')
@Index(['workspaceId', 'createdAt', 'id'])
export class Campaign {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'bigint', nullable: true }) sequenceId: number | null;
  @Column({ type: 'text', default: 'draft' }) status: CampaignStatus;
  @Column({ type: 'uuid', array: true, default: () => "'{}'" }) inboxIds: string[];
  @Column({ type: 'jsonb', nullable: true }) schedule: CampaignSchedule | null;
  @Column({ type: 'integer', nullable: true }) dailyLimit: number | null;
  @Column({ type: 'boolean', default: true }) stopOnReply: boolean;
  /** Nothing of the campaign is sent before this (null: no scheduled start). */
  @Timestamp() startAt: Date | null;
  /** Read the schedule's days and hours in each contact's `timezone` (falling back to the schedule's). */
  @Column({ type: 'boolean', default: false }) sendInContactTimezone: boolean;
  @Column({ type: 'text', default: 'contact' }) stopOnReplyScope: StopOnReplyScope;
  @Column({ type: 'text', nullable: true }) pausedReason: PausedReason | null;
  @Column({ type: 'text', default: 'skip_invalid' }) verification: CampaignVerification;
  /** Internal: sends before this do not count towards bounce protection (set on re-activation). */
  @Timestamp() bounceWindowStartedAt: Date | null;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
  @Timestamp() activatedAt: Date | null;
}
