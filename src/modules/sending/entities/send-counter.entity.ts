import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

export type SendCounterScope = 'campaign' | 'domain';

/**
 * Sends reserved per UTC day for one campaign or one sending domain of a workspace. Capacity is
 * reserved atomically (`INSERT .. ON CONFLICT DO UPDATE .. WHERE sent < limit`) before SMTP, so two
 * worker processes can never pass a cap together.
 */
@Entity('send_counters')
export class SendCounter {
  @PrimaryColumn({ type: 'uuid' }) workspaceId: WorkspaceId;
  @PrimaryColumn({ type: 'text' }) scope: SendCounterScope;
  /** Campaign id or sending domain. */
  @PrimaryColumn({ type: 'text' }) key: string;
  @PrimaryColumn({ type: 'date' }) day: string;
  @Column({ type: 'integer', default: 0 }) sent: number;
}
