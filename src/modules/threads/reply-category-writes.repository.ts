/**
 * The reply-category columns of messages and threads (CONTRACT §20), written for the reply-categories
 * module: the sweep's claim of uncategorised replies (a lease, taken again once expired) and its
 * release, setting a reply's category once (or again, for a correction), the thread's category.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import type { WorkspaceConfig } from '../workspaces/workspace-config.js';
import type { CategorySource, ReplyCategory } from './reply-category.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

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

@Injectable()
export class ReplyCategoryWritesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims up to `batch` replies the rules have not seen yet, oldest first, whose lease is absent or
   * expired (idx_messages_uncategorised): each is leased for `leaseSeconds`, so a process that dies
   * mid-way leaves it to be taken again. Other processes skip the rows being claimed.
   */
  claimUncategorisedAcrossWorkspaces(batch: number, leaseSeconds: number): Promise<ClaimedReply[]> {
    return rows<ClaimedReply>(
      this.ds.manager,
      `WITH claimed AS (
         SELECT id FROM messages
         WHERE kind = 'reply' AND category IS NULL AND NOT category_awaiting_ai
           AND (category_lease_until IS NULL OR category_lease_until < now())
         ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE messages m SET category_lease_until = now() + make_interval(secs => $2)
       FROM claimed c, workspaces w
       WHERE m.id = c.id AND w.id = m.workspace_id
       RETURNING m.id, m.workspace_id, m.body, w.config`,
      [batch, leaseSeconds],
    );
  }

  /**
   * Claims up to `batch` replies waiting for their workspace's AI provider, round-robin across
   * workspaces (idx_messages_awaiting_ai): each workspace's waiting replies are ranked oldest first,
   * the rank raised by the replies of that workspace already in flight (leased, in any process), and
   * the lowest ranks are taken first. So every workspace with a reply waiting gets a slot before any
   * gets a second, whatever its backlog, and a workspace whose provider hangs holds no more slots than
   * its turn. Leased like the rules' claim.
   */
  claimAwaitingAiAcrossWorkspaces(batch: number, leaseSeconds: number): Promise<ClaimedReply[]> {
    return rows<ClaimedReply>(
      this.ds.manager,
      `WITH waiting AS (
         SELECT id, workspace_id, row_number() OVER (PARTITION BY workspace_id ORDER BY id) AS rn
         FROM messages
         WHERE kind = 'reply' AND category IS NULL AND category_awaiting_ai
           AND (category_lease_until IS NULL OR category_lease_until < now())
       ), in_flight AS (
         SELECT workspace_id, count(*) AS n FROM messages
         WHERE kind = 'reply' AND category IS NULL AND category_awaiting_ai AND category_lease_until >= now()
         GROUP BY workspace_id
       ), claimed AS (
         SELECT x.id FROM messages x
         JOIN waiting r ON r.id = x.id
         LEFT JOIN in_flight f ON f.workspace_id = r.workspace_id
         ORDER BY r.rn + coalesce(f.n, 0), r.id
         LIMIT $1 FOR UPDATE OF x SKIP LOCKED)
       UPDATE messages m SET category_lease_until = now() + make_interval(secs => $2)
       FROM claimed c, workspaces w
       WHERE m.id = c.id AND w.id = m.workspace_id
       RETURNING m.id, m.workspace_id, m.body, w.config`,
      [batch, leaseSeconds],
    );
  }

  /**
   * The rules left these replies to the workspace's AI provider: their lease is given back and the
   * AI step's claim sees them.
   */
  async markAwaitingAiAcrossWorkspaces(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ds.query(
      `UPDATE messages SET category_awaiting_ai = true, category_lease_until = NULL
       WHERE id = ANY($1::bigint[]) AND kind = 'reply' AND category IS NULL`,
      [ids],
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
    workspaceId: WorkspaceId,
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

  /**
   * Locks the thread row of a reply (FOR UPDATE), before the reply's own row is locked: every path
   * that sets a category takes thread, then message, so a correction and the sweep never deadlock.
   */
  async lockThreadOfReply(workspaceId: WorkspaceId, messageId: number, m: EntityManager): Promise<void> {
    await m.query(
      `SELECT t.id FROM threads t JOIN messages x ON x.thread_id = t.id AND x.workspace_id = t.workspace_id
       WHERE x.workspace_id = $1 AND x.id = $2 FOR UPDATE OF t`,
      [workspaceId, messageId],
    );
  }

  /** The thread takes the category of its latest categorised reply (by arrival). */
  async refreshThreadCategory(workspaceId: WorkspaceId, threadId: number, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE threads t SET category = (
         SELECT x.category FROM messages x
         WHERE x.workspace_id = $1 AND x.thread_id = $2 AND x.kind = 'reply' AND x.category IS NOT NULL
         ORDER BY x.id DESC LIMIT 1)
       WHERE t.workspace_id = $1 AND t.id = $2`,
      [workspaceId, threadId],
    );
  }
}
