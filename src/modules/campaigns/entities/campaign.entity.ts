import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp, UpdatedAt } from '../../../database/columns.js';

export type CampaignStatus = 'draft' | 'active' | 'paused' | 'archived';
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
  @Column({ type: 'uuid' }) workspaceId: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'bigint', nullable: true }) sequenceId: number | null;
  @Column({ type: 'text', default: 'draft' }) status: CampaignStatus;
  @Column({ type: 'uuid', array: true, default: () => "'{}'" }) inboxIds: string[];
  @Column({ type: 'jsonb', nullable: true }) schedule: CampaignSchedule | null;
  @Column({ type: 'integer', nullable: true }) dailyLimit: number | null;
  @Column({ type: 'boolean', default: true }) stopOnReply: boolean;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
  @Timestamp() activatedAt: Date | null;
}
