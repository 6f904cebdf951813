/**
 * The statements of reply categories (CONTRACT §20): the sweep's claim of uncategorised replies (a
 * lease, taken again once expired), setting a reply's category once (or again, for a correction),
 * the thread's category, and what the effects need to know about a reply's thread.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import type { WorkspaceConfig } from '../workspaces/workspace-config.js';
import type { CategorySource, ReplyCategory } from '../threads/reply-category.js';

/** An uncategorised reply claimed by the sweep, with its workspace's stored config. */
export interface ClaimedReply {
  id: number;
  workspace_id: string;
  body: string | null;
  config: Partial<WorkspaceConfig> | null;
}

/** A reply whose category was just set, with what it was before (null the first time). */
export interface CategorisedReply {
  thread_id: number;
  received_at: Date;
  previous_category: ReplyCategory | null;
  previous_source: CategorySource | null;
}

/** What the effects of a category need: the thread's contact (and address), campaign, enrollment. */
export interface ReplyThreadContext {
  contact_id: number;
  campaign_id: number | null;
  enrollment_id: number | null;
  email: string | null;
}

@Injectable()
export class ReplyCategoriesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims up to `batch` uncategorised replies, oldest first, whose lease is absent or expired
   * (idx_messages_uncategorised): each is leased for `leaseSeconds`, so a process that dies mid-way
   * leaves it to be taken again. Other processes skip the rows being claimed.
   */
  claimUncategorisedAcrossWorkspaces(batch: number, leaseSeconds: number): Promise<ClaimedReply[]> {
    return rows<ClaimedReply>(
      this.ds.manager,
      `WITH claimed AS (
         SELECT id FROM messages
         WHERE kind = 'reply' AND category IS NULL
           AND (category_lease_until IS NULL OR category_lease_until < now())
         ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE messages m SET category_lease_until = now() + make_interval(secs => $2)
       FROM claimed c, workspaces w
       WHERE m.id = c.id AND w.id = m.workspace_id
       RETURNING m.id, m.workspace_id, m.body, w.config`,
      [batch, leaseSeconds],
    );
  }

  /** Gives claims back (a draining process): the replies are taken at once by the next pass. */
  async releaseClaimsAcrossWorkspaces(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ds.query(
      `UPDATE messages SET category_lease_until = NULL WHERE id = ANY($1::bigint[]) AND category IS NULL`,
      [ids],
    );
  }

  /**
   * Sets a reply's category and its source, locking the row: with `onlyIfUnset` (the sweep) only when
   * none is set yet, so a reply is decided once however often it is taken. The reply's thread, day
   * and former category; undefined when nothing changed (already set, not a reply, or the same
   * category and source).
   */
  async setCategory(
    workspaceId: string,
    messageId: number,
    category: ReplyCategory,
    source: CategorySource,
    onlyIfUnset: boolean,
    m: EntityManager,
  ): Promise<CategorisedReply | undefined> {
    const [found] = await rows<CategorisedReply>(
      m,
      `WITH old AS (
         SELECT id, category, category_source FROM messages
         WHERE workspace_id = $1 AND id = $2 AND kind = 'reply' FOR UPDATE)
       UPDATE messages x SET category = $3, category_source = $4, category_lease_until = NULL
       FROM old
       WHERE x.id = old.id AND ($5::boolean IS FALSE OR old.category IS NULL)
         AND (old.category IS DISTINCT FROM $3 OR old.category_source IS DISTINCT FROM $4)
       RETURNING x.thread_id, coalesce(x.received_at, x.created_at) AS received_at,
         old.category AS previous_category, old.category_source AS previous_source`,
      [workspaceId, messageId, category, source, onlyIfUnset],
    );
    return found ? { ...found, thread_id: Number(found.thread_id) } : undefined;
  }

  /** The thread takes the category of its latest categorised reply (by arrival). */
  async refreshThreadCategory(workspaceId: string, threadId: number, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE threads t SET category = (
         SELECT x.category FROM messages x
         WHERE x.workspace_id = $1 AND x.thread_id = $2 AND x.kind = 'reply' AND x.category IS NOT NULL
         ORDER BY x.id DESC LIMIT 1)
       WHERE t.workspace_id = $1 AND t.id = $2`,
      [workspaceId, threadId],
    );
  }

  /** The thread's contact (and its address), campaign and enrollment; undefined when it is gone. */
  async threadContext(
    workspaceId: string,
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
    workspaceId: string,
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
