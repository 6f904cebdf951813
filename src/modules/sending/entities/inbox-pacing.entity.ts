import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Timestamp } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/**
 * When an inbox may send next: the previous send time plus the minimum gap plus its random jitter,
 * drawn once per send. Reserved in the same statement that checks it.
 */
@Entity('inbox_pacing')
export class InboxPacing {
  @PrimaryColumn({ type: 'uuid' }) inboxId: string;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Timestamp({ nullable: false }) nextSendAt: Date;
}
