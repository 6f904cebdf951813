/**
 * What reply categories (CONTRACT §20) read about a reply's thread. The category columns and the
 * sweep's lease are written by the threads module, which owns messages and threads
 * (`ReplyCategoryWritesRepository`, threads/reply-category-writes.repository.ts).
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** What the effects of a category need: the thread's contact (and address), campaign, enrollment. */
export interface ReplyThreadContext {
  contact_id: number;
  campaign_id: number | null;
  enrollment_id: number | null;
  email: string | null;
}

/** Who wrote a reply: its `From` address, and whether that is the thread's contact. */
export interface ReplyWriter {
  address: string;
  /**
   * The address is the contact's, or one a message of the thread was sent to (compared without case):
   * only then does the reply speak for the contact.
   */
  is_contact: boolean;
}

@Injectable()
export class ReplyCategoriesRepository {
  /** The reply's writer (its stored `From`); undefined when the reply is gone. */
  async replyWriter(
    workspaceId: WorkspaceId,
    messageId: number,
    m: EntityManager,
  ): Promise<ReplyWriter | undefined> {
    const [found] = await rows<ReplyWriter>(
      m,
      `SELECT r.from_address AS address,
         coalesce(lower(r.from_address) = lower(c.email), false) OR EXISTS (
           SELECT 1 FROM messages o
           WHERE o.workspace_id = r.workspace_id AND o.thread_id = r.thread_id AND o.direction = 'outbound'
             AND lower(o.to_address) = lower(r.from_address)) AS is_contact
       FROM messages r
       JOIN threads t ON t.workspace_id = r.workspace_id AND t.id = r.thread_id
       LEFT JOIN contacts c ON c.workspace_id = t.workspace_id AND c.id = t.contact_id
       WHERE r.workspace_id = $1 AND r.id = $2`,
      [workspaceId, messageId],
    );
    return found;
  }

  /** The thread's contact (and its address), campaign and enrollment; undefined when it is gone. */
  async threadContext(
    workspaceId: WorkspaceId,
    threadId: number,
    m: EntityManager,
  ): Promise<ReplyThreadContext | undefined> {
    const [found] = await rows<ReplyThreadContext>(
      m,
      `SELECT t.contact_id, t.campaign_id, t.enrollment_id, c.email
       FROM threads t LEFT JOIN contacts c ON c.workspace_id = t.workspace_id AND c.id = t.contact_id
       WHERE t.workspace_id = $1 AND t.id = $2`,
      [workspaceId, threadId],
    );
    return found
      ? {
          contact_id: Number(found.contact_id),
          campaign_id: found.campaign_id === null ? null : Number(found.campaign_id),
          enrollment_id: found.enrollment_id === null ? null : Number(found.enrollment_id),
          email: found.email,
        }
      : undefined;
  }

  /**
   * Whether the thread exists, and the id of its latest reply (null when it has none). The thread row
   * is locked for the transaction, so two corrections of one thread run one after the other.
   */
  async latestReplyOfThread(
    workspaceId: WorkspaceId,
    threadId: number,
    m: EntityManager,
  ): Promise<{ replyId: number | null } | undefined> {
    const [thread] = await rows<{ id: number }>(
      m,
      'SELECT id FROM threads WHERE workspace_id = $1 AND id = $2 FOR UPDATE',
      [workspaceId, threadId],
    );
    if (!thread) return undefined;
    const [reply] = await rows<{ id: number }>(
      m,
      `SELECT id FROM messages WHERE workspace_id = $1 AND thread_id = $2 AND kind = 'reply'
       ORDER BY id DESC LIMIT 1`,
      [workspaceId, threadId],
    );
    return { replyId: reply ? Number(reply.id) : null };
  }
}
