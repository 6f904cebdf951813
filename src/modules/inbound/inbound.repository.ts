/**
 * The reads of inbound mail: matching a mail to the message it answers, its reply policy, and the
 * inboxes to read (the inbox's IMAP checkpoint and errors are written by the inboxes module's
 * `InboxStateRepository`). Ingestion runs in one workspace (the inbox's); IMAP polling spans
 * workspaces (it visits every inbox with IMAP settings).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import type { StopOnReplyScope } from '../campaigns/entities/campaign.entity.js';
import { Inbox } from '../inboxes/entities/inbox.entity.js';
import { Message } from '../threads/entities/message.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** The outbound message a mail refers to, with its thread's contact and campaign. */
export interface OriginalMessage {
  id: number;
  thread_id: number;
  enrollment_id: number | null;
  to_address: string;
  contact_id: number;
  campaign_id: number | null;
}

@Injectable()
export class InboundRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The newest outbound message of the workspace whose Message-ID is one of `refs`. */
  async findOriginal(workspaceId: WorkspaceId, refs: string[]): Promise<OriginalMessage | undefined> {
    const [original] = await rows<OriginalMessage>(
      this.ds.manager,
      `SELECT m.id, m.thread_id, m.enrollment_id, m.to_address, t.contact_id, t.campaign_id
       FROM messages m JOIN threads t ON t.id = m.thread_id
       WHERE m.workspace_id = $1 AND m.direction = 'outbound' AND m.message_id = ANY($2::text[])
       ORDER BY m.id DESC LIMIT 1`,
      [workspaceId, refs],
    );
    return original;
  }

  /**
   * The latest message the inbox sent to `address` within the last `days` (a report that quotes no
   * Message-ID is matched by its failed recipient, CONTRACT §18).
   */
  async findLatestSentTo(
    workspaceId: WorkspaceId,
    inboxId: string,
    address: string,
    days: number,
  ): Promise<OriginalMessage | undefined> {
    const [original] = await rows<OriginalMessage>(
      this.ds.manager,
      `SELECT m.id, m.thread_id, m.enrollment_id, m.to_address, t.contact_id, t.campaign_id
       FROM messages m JOIN threads t ON t.id = m.thread_id
       WHERE m.workspace_id = $1 AND m.direction = 'outbound' AND m.to_address = $3
         AND t.inbox_id = $2 AND m.status IN ('sent', 'failed')
         AND m.created_at > now() - make_interval(days => $4)
       ORDER BY m.id DESC LIMIT 1`,
      [workspaceId, inboxId, address.toLowerCase(), days],
    );
    return original;
  }

  /**
   * Serialises ingestion of one Message-ID (the same mail may arrive over IMAP and the inbound route
   * at once), waiting at most `lockTimeout` for any lock in this transaction.
   */
  async lockMessageId(
    workspaceId: WorkspaceId,
    messageId: string,
    lockTimeout: string,
    m: EntityManager,
  ): Promise<void> {
    await m.query(`SET LOCAL lock_timeout = '${lockTimeout}'`);
    await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `inbound:${workspaceId}:${messageId}`,
    ]);
  }

  /** The id of an inbound message already recorded with this Message-ID, if any. */
  async findInboundId(workspaceId: WorkspaceId, messageId: string, m: EntityManager): Promise<number | null> {
    const [dup] = await rows<{ id: number }>(
      m,
      `SELECT id FROM messages WHERE workspace_id = $1 AND direction = 'inbound' AND message_id = $2 LIMIT 1`,
      [workspaceId, messageId],
    );
    return dup ? Number(dup.id) : null;
  }

  async findMessage(workspaceId: WorkspaceId, id: number, m: EntityManager): Promise<Message> {
    return m.getRepository(Message).findOneOrFail({ where: { workspaceId, id } });
  }

  /**
   * Whether the campaign stops an enrollment on reply (true when the campaign is gone), and for whom:
   * the replier (`contact`) or every contact of the replier's domain (`domain`).
   */
  async replyPolicy(
    workspaceId: WorkspaceId,
    campaignId: number,
    m: EntityManager,
  ): Promise<{ stopOnReply: boolean; scope: StopOnReplyScope }> {
    const [campaign] = await rows<{ stop_on_reply: boolean; stop_on_reply_scope: StopOnReplyScope }>(
      m,
      'SELECT stop_on_reply, stop_on_reply_scope FROM campaigns WHERE workspace_id = $1 AND id = $2',
      [workspaceId, campaignId],
    );
    return {
      stopOnReply: campaign?.stop_on_reply ?? true,
      scope: campaign?.stop_on_reply_scope ?? 'contact',
    };
  }

  // IMAP reading (ImapConnections): every inbox with IMAP settings, in any workspace.

  async inboxIdsToPollAcrossWorkspaces(): Promise<string[]> {
    const found = await rows<{ id: string }>(
      this.ds.manager,
      // API inboxes are read through their provider's API (api-mailboxes.service.ts), not IMAP.
      `SELECT id FROM inboxes WHERE imap_sealed IS NOT NULL AND transport <> 'api' ORDER BY id`,
    );
    return found.map((r) => r.id);
  }

  /** API reading (ApiMailboxes): OAuth inboxes with `transport: api` whose grant is usable, any workspace. */
  async apiInboxIdsAcrossWorkspaces(): Promise<string[]> {
    const found = await rows<{ id: string }>(
      this.ds.manager,
      `SELECT id FROM inboxes WHERE transport = 'api' AND auth = 'oauth2' AND status <> 'reauth_required' ORDER BY id`,
    );
    return found.map((r) => r.id);
  }

  findInboxAcrossWorkspaces(inboxId: string): Promise<Inbox | null> {
    return this.ds.getRepository(Inbox).findOne({ where: { id: inboxId } });
  }
}
