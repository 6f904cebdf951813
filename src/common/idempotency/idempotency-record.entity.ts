import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAt, Timestamp } from '../../database/columns.js';

/** One Idempotency-Key claim. The stored response is sealed with AES-256-GCM. */
@Entity('idempotency_keys')
export class IdempotencyRecord {
  /** `ws:<uuid>` or `org:<uuid>`: keys are scoped to the credential's tenant. */
  @PrimaryColumn({ type: 'text' }) tenant: string;
  @PrimaryColumn({ type: 'text' }) key: string;
  @Column({ type: 'text' }) fingerprint: string;
  @Column({ type: 'text' }) state: 'processing' | 'completed';
  @Column({ type: 'integer', nullable: true }) responseStatus: number | null;
  @Column({ type: 'text', nullable: true }) responseSealed: string | null;
  @CreatedAt() createdAt: Date;
  @Index() @Timestamp({ nullable: false }) expiresAt: Date;
}
