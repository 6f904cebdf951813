import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

export type ImportStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface ImportRowError {
  row: number;
  field: string;
  message: string;
}

@Entity('imports')
@Index(['workspaceId', 'createdAt', 'id'])
export class ImportBatch {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'text', default: 'queued' }) status: ImportStatus;
  @Column({ type: 'text', default: 'api' }) source: 'api' | 'cli';
  @Column({ type: 'boolean', default: true }) updateExisting: boolean;
  @Column({ type: 'integer', default: 0 }) totalRows: number;
  /** Checkpoint: rows 1..processedRows are done. */
  @Column({ type: 'integer', default: 0 }) processedRows: number;
  @Column({ type: 'integer', default: 0 }) createdCount: number;
  @Column({ type: 'integer', default: 0 }) updatedCount: number;
  @Column({ type: 'integer', default: 0 }) skippedCount: number;
  @Column({ type: 'integer', default: 0 }) errorCount: number;
  @Column({ type: 'jsonb', default: () => "'[]'" }) errors: ImportRowError[];
  @Column({ type: 'text', nullable: true }) failureReason: string | null;
  @CreatedAt() createdAt: Date;
  @Timestamp() startedAt: Date | null;
  @Timestamp() finishedAt: Date | null;
}
