/**
 * Signed unsubscribe tokens (`/u/{token}`): the workspace, contact, campaign and enrollment they were made
 * for (campaign and enrollment 0: a manual reply in a thread without them), tagged with HMAC-SHA256 under a key derived for this purpose only. Compact, URL-safe, never
 * guessable, and they do not expire (an unsubscribe link in an old mail must keep working).
 */
import { derivedKey, hmacSha256, safeEqual } from '../../common/crypto/crypto.js';
import { asWorkspaceId, type WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface UnsubscribeClaims {
  workspaceId: WorkspaceId;
  contactId: number;
  campaignId: number;
  enrollmentId: number;
}

const TAG_BYTES = 16;

function tag(payload: Buffer): Buffer {
  return hmacSha256(derivedKey('unsubscribe'), payload).subarray(0, TAG_BYTES);
}

export function signUnsubscribeToken(c: UnsubscribeClaims): string {
  const payload = Buffer.from(
    `1.${c.workspaceId.replace(/-/g, '')}.${c.contactId.toString(36)}.${c.campaignId.toString(36)}.${c.enrollmentId.toString(36)}`,
  );
  return `${payload.toString('base64url')}.${tag(payload).toString('base64url')}`;
}

/** The claims of a genuine token, or null for anything else (tampered, truncated, foreign key). */
export function verifyUnsubscribeToken(token: string): UnsubscribeClaims | null {
  if (typeof token !== 'string' || token.length > 200) return null;
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!m) return null;
  const payload = Buffer.from(m[1], 'base64url');
  if (!safeEqual(tag(payload), Buffer.from(m[2], 'base64url'))) return null;
  const parts = /^1\.([0-9a-f]{32})\.([0-9a-z]+)\.([0-9a-z]+)\.([0-9a-z]+)$/.exec(payload.toString());
  if (!parts) return null;
  const hex = parts[1];
  const workspaceId = asWorkspaceId(
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  );
  const [contactId, campaignId, enrollmentId] = [parts[2], parts[3], parts[4]].map((s) => parseInt(s, 36));
  // Campaign and enrollment are 0 for a manual reply in a thread that has none.
  if (!(Number.isSafeInteger(contactId) && contactId > 0)) return null;
  if (![campaignId, enrollmentId].every((n) => Number.isSafeInteger(n) && n >= 0)) return null;
  return { workspaceId, contactId, campaignId, enrollmentId };
}
