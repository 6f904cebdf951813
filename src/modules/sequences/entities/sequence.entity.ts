import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp, UpdatedAt } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

export type SequenceStatus = 'draft' | 'published' | 'archived';

/** An alternative content of a step (variants B..E; the step's own subject and body are A). */
export interface StepVariant {
  subject: string | null;
  body: string;
}

export interface SequenceStep {
  position: number;
  delay_minutes: number;
  subject: string | null;
  body: string;
  /** 1..4 extra variants (absent or empty: the step has only its own content). */
  variants?: StepVariant[];
}

@Entity('sequences')
@Index(['workspaceId', 'createdAt', 'id'])
export class Sequence {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', default: 'draft' }) status: SequenceStatus;
  @Column({ type: 'jsonb', default: () => "'[]'" }) steps: SequenceStep[];
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
  @Timestamp() publishedAt: Date | null;
}
