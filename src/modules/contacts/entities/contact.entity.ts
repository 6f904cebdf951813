import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp, UpdatedAt } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

export const CONTACT_STAGES = [
  'new',
  'contacted',
  'replied',
  'interested',
  'not_interested',
  'customer',
] as const;
export type ContactStage = (typeof CONTACT_STAGES)[number];
export type ContactSource = 'api' | 'import' | 'cli' | 'referral';

@Entity('contacts')
@Index(['workspaceId', 'email'], { unique: true })
@Index(['workspaceId', 'createdAt', 'id'])
@Index('idx_contacts_stage', ['workspaceId', 'stage', 'createdAt', 'id'])
@Index('idx_contacts_suppressed', ['workspaceId', 'createdAt', 'id'], {
  where: 'suppression_reason IS NOT NULL',
})
@Index('idx_contacts_updated', ['workspaceId', 'updatedAt'])
export class Contact {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  /** Trimmed and lower-cased; the identity of the contact inside its workspace. */
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text', nullable: true }) firstName: string | null;
  @Column({ type: 'text', nullable: true }) lastName: string | null;
  @Column({ type: 'text', nullable: true }) company: string | null;
  @Column({ type: 'text', nullable: true }) title: string | null;
  @Column({ type: 'text', nullable: true }) phone: string | null;
  @Column({ type: 'text', nullable: true }) timezone: string | null;
  @Column({ type: 'jsonb', default: () => "'{}'" }) customFields: Record<string, string>;
  @Column({ type: 'text', default: 'new' }) stage: ContactStage;
  @Column({ type: 'text', default: 'api' }) source: ContactSource;
  /** The contact whose `wrong_person` reply named this one (`source: referral`). */
  @Column({ type: 'bigint', nullable: true }) referredByContactId: number | null;
  /** Denormalised from the suppression list (address or domain); null = sendable. */
  @Column({ type: 'text', nullable: true }) suppressionReason: string | null;
  @Timestamp() suppressedAt: Date | null;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
}
