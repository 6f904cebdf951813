/**
 * Every statement of a manual reply (`POST /threads/{id}/messages`): the thread with its inbox and
 * contact (locked, so replies in one thread are recorded one after the other), the threading chain,
 * and the current day. The `sending` record and its resolution are the threads module's
 * (`MessageWritesRepository`); capacity is the engine's (capacity.repository.ts).
 */
import { Injectable } from '@nestjs/common';
import type { InboxAuth, InboxProvider, InboxTransport } from '../../inboxes/entities/inbox.entity.js';
import type { EntityManager } from 'typeorm';
import { rows } from '../../../database/query-rows.js';
import { effectiveConfig, type WorkspaceConfig } from '../../workspaces/workspace-config.js';
import { Message } from '../../threads/entities/message.entity.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** A thread as a manual reply needs it, read under its row lock. */
export interface ReplyContext {
  threadId: number;
  subject: string;
  contactId: number;
  enrollmentId: number | null;
  campaignId: number | null;
  inbox: {
    id: string;
    email: string;
    displayName: string | null;
    domain: string;
    status: string;
    smtpSealed: string;
    workspaceId: WorkspaceId;
    auth: InboxAuth;
    provider: InboxProvider;
    transport: InboxTransport;
    oauthConnectedAt: Date | null;
  };
  /** The contact's address and suppression, or null when the contact is gone. */
  contact: { email: string; suppressionReason: string | null } | null;
  config: WorkspaceConfig;
}

/** References stop at the newest this many Message-IDs (header lines stay short). */
const CHAIN_MAX = 30;

@Injectable()
export class ManualReplyRepository {
  /** The thread with its inbox, contact and workspace config, locked for this transaction. */
  async lockThread(
    workspaceId: WorkspaceId,
    threadId: number,
    m: EntityManager,
  ): Promise<ReplyContext | null> {
    const [r] = await rows<Record<string, unknown>>(
      m,
      `SELECT t.id, t.subject, t.contact_id, t.enrollment_id, t.campaign_id,
         i.id AS inbox_id, i.email AS inbox_email, i.display_name, i.domain, i.status AS inbox_status,
         i.smtp_sealed, i.auth, i.provider, i.transport, i.oauth_connected_at, c.email AS contact_email, c.suppression_reason, w.config
       FROM threads t
       JOIN inboxes i ON i.workspace_id = t.workspace_id AND i.id = t.inbox_id
       JOIN workspaces w ON w.id = t.workspace_id
       LEFT JOIN contacts c ON c.workspace_id = t.workspace_id AND c.id = t.contact_id
       WHERE t.workspace_id = $1 AND t.id = $2
       FOR UPDATE OF t`,
      [workspaceId, threadId],
    );
    if (!r) return null;
    return {
      threadId: Number(r.id),
      subject: r.subject as string,
      contactId: Number(r.contact_id),
      enrollmentId: r.enrollment_id === null ? null : Number(r.enrollment_id),
      campaignId: r.campaign_id === null ? null : Number(r.campaign_id),
      inbox: {
        id: r.inbox_id as string,
        email: r.inbox_email as string,
        displayName: (r.display_name as string | null) ?? null,
        domain: r.domain as string,
        status: r.inbox_status as string,
        smtpSealed: r.smtp_sealed as string,
        workspaceId,
        auth: r.auth as InboxAuth,
        provider: r.provider as InboxProvider,
        transport: r.transport as InboxTransport,
        oauthConnectedAt: r.oauth_connected_at ? new Date(r.oauth_connected_at as string) : null,
      },
      contact:
        r.contact_email === null
          ? null
          : {
              email: r.contact_email as string,
              suppressionReason: (r.suppression_reason as string | null) ?? null,
            },
      config: effectiveConfig((r.config ?? {}) as Partial<WorkspaceConfig>),
    };
  }

  /**
   * The thread's conversation so far, oldest first (at most the newest CHAIN_MAX): Message-IDs of
   * messages sent or received, bounces and complaints aside (they are reports, not the conversation).
   */
  async chain(workspaceId: WorkspaceId, threadId: number, m: EntityManager): Promise<string[]> {
    const found = await rows<{ message_id: string }>(
      m,
      `SELECT message_id FROM (
         SELECT message_id, created_at, id FROM messages
         WHERE workspace_id = $1 AND thread_id = $2 AND message_id IS NOT NULL
           AND status IN ('sent', 'received') AND kind IN ('email', 'manual', 'reply', 'auto_reply')
         ORDER BY created_at DESC, id DESC LIMIT ${CHAIN_MAX}) x
       ORDER BY created_at, id`,
      [workspaceId, threadId],
    );
    return found.map((r) => r.message_id);
  }

  /** The manual message recorded with this Idempotency-Key, if any. */
  findByIdempotencyKey(workspaceId: WorkspaceId, key: string, m: EntityManager): Promise<Message | null> {
    return m.getRepository(Message).findOne({ where: { workspaceId, idempotencyKey: key } });
  }

  findMessage(workspaceId: WorkspaceId, id: number, m: EntityManager): Promise<Message> {
    return m.getRepository(Message).findOneOrFail({ where: { workspaceId, id } });
  }

  /** The current UTC day, as the capacity counters see it. */
  async utcToday(workspaceId: WorkspaceId, m: EntityManager): Promise<string> {
    const [r] = await rows<{ today: string }>(
      m,
      `SELECT (now() AT TIME ZONE 'UTC')::date::text AS today, $1::uuid AS workspace_id`,
      [workspaceId],
    );
    return r.today;
  }
}
