import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, UpdatedAt } from '../../../database/columns.js';
import type { WorkspaceConfig } from '../workspace-config.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

@Entity('workspaces')
@Index(['organizationId', 'createdAt'])
export class Workspace {
  @PrimaryGeneratedColumn('uuid') id: WorkspaceId;
  @Column({ type: 'uuid' }) organizationId: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'jsonb' }) config: WorkspaceConfig;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
}
