import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp } from '../../../database/columns.js';
import type { KeyTier } from '../../../common/auth/token.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'text' }) tier: KeyTier;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) prefix: string;
  /** HMAC-SHA256(API_KEY_PEPPER, token), hex. The plaintext is never stored. */
  @Index({ unique: true }) @Column({ type: 'text' }) tokenHash: string;
  @Column({ type: 'text', array: true, default: () => "'{}'" }) scopes: string[];
  @Timestamp() expiresAt: Date | null;
  @Column({ type: 'text', array: true, default: () => "'{}'" }) allowedIps: string[];
  @Index() @Column({ type: 'uuid', nullable: true }) workspaceId: WorkspaceId | null;
  @Index() @Column({ type: 'uuid', nullable: true }) organizationId: string | null;
  @Column({ type: 'integer', nullable: true }) rateLimit: number | null;
  @Timestamp() revokedAt: Date | null;
  @Timestamp() lastUsedAt: Date | null;
  /** The provisioning key that minted this one, for audit only: revoking that key never touches this. */
  @Column({ type: 'bigint', nullable: true }) createdByKeyId: number | null;
  @CreatedAt() createdAt: Date;
}
