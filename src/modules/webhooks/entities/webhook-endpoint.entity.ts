import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, UpdatedAt } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

@Entity('webhook_endpoints')
@Index(['workspaceId', 'createdAt', 'id'])
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'text' }) url: string;
  /** Event families: message, email, contact, enrollment. */
  @Column({ type: 'text', array: true }) events: string[];
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'text', default: 'enabled' }) status: 'enabled' | 'disabled';
  @Column({ type: 'text', nullable: true }) disabledReason: string | null;
  @Column({ type: 'integer', default: 0 }) consecutiveFailures: number;
  /** The signing secret (`whsec_…`), sealed with AES-256-GCM. */
  @Column({ type: 'text' }) secretSealed: string;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
}
