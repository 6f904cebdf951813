import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { DomainHealthView } from '../health/domain-health.js';
import { CreatedAt, Timestamp, UpdatedAt } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** `reauth_required`: an OAuth inbox whose refresh token the provider refused (CONTRACT §19). */
export type InboxStatus = 'active' | 'paused' | 'error' | 'reauth_required';
export const INBOX_STATUSES: readonly InboxStatus[] = ['active', 'paused', 'error', 'reauth_required'];
/** `smtp`: any server, signed in with a password; `google` / `microsoft`: OAuth 2.0 (XOAUTH2). */
export type InboxProvider = 'smtp' | 'google' | 'microsoft';
export const INBOX_PROVIDERS: readonly InboxProvider[] = ['smtp', 'google', 'microsoft'];
export type InboxAuth = 'password' | 'oauth2';
/** How an OAuth inbox sends and reads: SMTP/IMAP with XOAUTH2, or the provider's own API (Gmail API, Graph). */
export type InboxTransport = 'smtp' | 'api';
export const INBOX_TRANSPORTS: readonly InboxTransport[] = ['smtp', 'api'];

/**
 * A connected mailbox. Credentials are sealed (AES-256-GCM) in `smtpSealed` / `imapSealed`, and the
 * inbound secret is stored only as a hash. None of these columns ever leaves the service.
 */
@Entity('inboxes')
@Index(['workspaceId', 'createdAt', 'id'])
export class Inbox {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text', nullable: true }) displayName: string | null;
  @Column({ type: 'text', default: 'smtp' }) provider: InboxProvider;
  @Column({ type: 'text', default: 'password' }) auth: InboxAuth;
  @Column({ type: 'text', default: 'active' }) status: InboxStatus;
  /** `api`: an OAuth inbox that sends and reads through Gmail API / Microsoft Graph (CONTRACT §25). */
  @Column({ type: 'text', default: 'smtp' }) transport: InboxTransport;
  /** Where API reading stands: a Gmail historyId, or a Graph delta (or next) link; null: not read yet. */
  @Column({ type: 'text', nullable: true }) apiCheckpoint: string | null;
  /** No send from the inbox before this (the provider's `Retry-After` on a 429/503). */
  @Timestamp() sendHeldUntil: Date | null;
  @Column({ type: 'integer', default: 50 }) dailyLimit: number;
  /** Ramp-up (all three set, or none): the day's limit grows from `rampStart` by `rampIncreasePerDay`. */
  @Column({ type: 'integer', nullable: true }) rampStart: number | null;
  @Column({ type: 'integer', nullable: true }) rampIncreasePerDay: number | null;
  @Timestamp() rampStartedAt: Date | null;
  @Column({ type: 'integer', default: 0 }) sentToday: number;
  /** The UTC day `sentToday` counts. */
  @Column({ type: 'date', nullable: true }) sentTodayDate: string | null;
  @Column({ type: 'text' }) domain: string;
  @Timestamp() lastErrorAt: Date | null;
  @Column({ type: 'text', nullable: true }) lastError: string | null;
  @Timestamp() lastSentAt: Date | null;
  /** Sealed JSON {host, port, secure, user, password}. */
  @Column({ type: 'text' }) smtpSealed: string;
  /** OAuth inboxes: the sealed refresh token (`inboxes.oauth_sealed.<inbox id>`); null for password inboxes. */
  @Column({ type: 'text', nullable: true }) oauthSealed: string | null;
  /** When the OAuth grant in `oauthSealed` was given (a reconnect starts a new one; cached access tokens are per grant). */
  @Timestamp() oauthConnectedAt: Date | null;
  /** The provider's subject (`sub`) of the account the inbox is connected with; another one answers 409. */
  @Column({ type: 'text', nullable: true }) oauthSubject: string | null;
  /** Sealed JSON {host, port, secure, user, password}, or null when the inbox is not polled. */
  @Column({ type: 'text', nullable: true }) imapSealed: string | null;
  @Column({ type: 'bigint', nullable: true }) imapUidValidity: number | string | null;
  @Column({ type: 'integer', nullable: true }) imapLastUid: number | null;
  /** Mails IMAP polling skipped unread for being over the size limit (counted once each). */
  @Column({ type: 'integer', default: 0 }) imapSkippedOversize: number;
  /** The last sending-domain health answer (GET /inboxes/{id}/health), reused for an hour. */
  @Column({ type: 'jsonb', nullable: true }) health: DomainHealthView | null;
  /** Until when a process is checking the domain's health (one check per inbox at a time). */
  @Timestamp() healthCheckingUntil: Date | null;
  /** HMAC of the per-inbox secret that authenticates POST /inbound/{id}. */
  @Column({ type: 'text' }) inboundSecretHash: string;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
}
