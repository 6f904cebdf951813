import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAt, Timestamp } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/**
 * An OAuth 2.0 connection begun by `POST /inboxes/oauth/{provider}/start` and not finished yet. The
 * state is stored only as a hash; the PKCE code verifier sealed. The callback deletes the row as it
 * reads it (single use); a row past `expiresAt` (10 minutes) connects nothing.
 */
@Entity('oauth_flows')
@Index('IDX_oauth_flows_expires_at', ['expiresAt'])
export class OAuthFlow {
  /** HMAC of the state (the state itself is never stored). */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_oauth_flows' }) stateHash: string;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'text' }) provider: string;
  /** The PKCE code verifier, sealed (`oauth_flows.code_verifier_sealed.<state hash>`). */
  @Column({ type: 'text' }) codeVerifierSealed: string;
  @Column({ type: 'text', nullable: true }) returnUrl: string | null;
  @Timestamp({ nullable: false }) expiresAt: Date;
  @CreatedAt() createdAt: Date;
}
