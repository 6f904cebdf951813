/**
 * Inbox secrets, in one place: SMTP/IMAP settings are sealed with AES-256-GCM (ENCRYPTION_KEYS), bound
 * to their inbox and column (`inboxes.smtp_sealed.<inbox id>`: a value copied into another inbox's row
 * does not open), and
 * the per-inbox inbound secret is stored only as an HMAC under a key derived for that purpose.
 * Nothing here is ever mapped into an API response.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { derivedKey, hmacSha256, safeEqual, seal, sealedAt, unseal } from '../../common/crypto/crypto.js';
import { isUuid } from '../../common/http/id-params.js';
import type { Inbox } from './entities/inbox.entity.js';
import { InboxesRepository } from './inboxes.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface MailServerSettings {
  host: string;
  port: number;
  /** Implicit TLS (465/993); false means STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  password: string | null;
}

export interface InboxTransport {
  inbox: Inbox;
  smtp: MailServerSettings;
  /** Null when the inbox is not polled over IMAP. */
  imap: MailServerSettings | null;
}

export const INBOUND_SECRET_PREFIX = 'ibs_';

let inboundKey: Buffer | undefined;
const key = (): Buffer => (inboundKey ??= derivedKey('inbound'));

/** A new random inbound secret: `ibs_` + 32 random bytes in base64url. Shown once. */
export function newInboundSecret(): string {
  return `${INBOUND_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What is stored for an inbound secret (hex HMAC-SHA256). */
export function hashInboundSecret(secret: string): string {
  return hmacSha256(key(), secret).toString('hex');
}

/** Which of an inbox's sealed columns: `smtp_sealed`, `imap_sealed` or `oauth_sealed` (refresh token). */
export type InboxServer = 'smtp' | 'imap' | 'oauth';

/** The associated data of an inbox's sealed settings: `inboxes.<smtp|imap>_sealed.<inbox id>`. */
export const inboxSealedAt = (inboxId: string, server: InboxServer): string =>
  sealedAt('inboxes', `${server}_sealed`, inboxId.toLowerCase());

/** Seals settings for the `server` column of inbox `inboxId` (the id must be known before the insert). */
export function sealSettings(settings: MailServerSettings, inboxId: string, server: InboxServer): string {
  return seal(JSON.stringify(settings), inboxSealedAt(inboxId, server));
}

/** Opens an inbox's sealed settings; throws (SealError) when they were sealed for another row or column. */
export function openSettings(sealed: string, inboxId: string, server: InboxServer): MailServerSettings {
  const parsed = JSON.parse(unseal(sealed, inboxSealedAt(inboxId, server))) as MailServerSettings;
  return {
    host: parsed.host,
    port: parsed.port,
    secure: Boolean(parsed.secure),
    user: parsed.user ?? null,
    password: parsed.password ?? null,
  };
}

/** Seals an OAuth inbox's refresh token for its `oauth_sealed` column. */
export const sealRefreshToken = (refreshToken: string, inboxId: string): string =>
  seal(refreshToken, inboxSealedAt(inboxId, 'oauth'));

/** Opens an OAuth inbox's refresh token. */
export const openRefreshToken = (sealed: string, inboxId: string): string =>
  unseal(sealed, inboxSealedAt(inboxId, 'oauth'));

/**
 * The inbox whose inbound secret is `presented`, or null (unknown inbox, malformed id, wrong secret).
 * Compares in constant time. Used by `POST /inbound/{inbox_id}`.
 */
export async function verifyInboundSecret(
  manager: EntityManager,
  inboxId: string,
  presented: string | undefined | null,
): Promise<Inbox | null> {
  if (typeof inboxId !== 'string' || !isUuid(inboxId)) return null;
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 200) return null;
  const inbox = await InboxesRepository.for(manager).findByIdAcrossWorkspaces(inboxId.toLowerCase());
  if (!inbox) return null;
  const ok = safeEqual(Buffer.from(hashInboundSecret(presented)), Buffer.from(inbox.inboundSecretHash));
  return ok ? inbox : null;
}

/** The decrypted SMTP and IMAP settings of an inbox of `workspaceId`, or null when it is not there. */
export async function loadInboxTransport(
  manager: EntityManager,
  workspaceId: WorkspaceId,
  inboxId: string,
): Promise<InboxTransport | null> {
  if (!isUuid(inboxId)) return null;
  const inbox = await InboxesRepository.for(manager).findOne(workspaceId, { id: inboxId.toLowerCase() });
  if (!inbox) return null;
  return {
    inbox,
    smtp: openSettings(inbox.smtpSealed, inbox.id, 'smtp'),
    imap: inbox.imapSealed ? openSettings(inbox.imapSealed, inbox.id, 'imap') : null,
  };
}
