/**
 * The `reply-categorize` sweep (worker role): decides the category of replies after they were
 * recorded, so ingestion never waits for a classifier or a provider (CONTRACT §20).
 *
 * A pass claims a batch of uncategorised replies (a lease, FOR UPDATE SKIP LOCKED: any number of
 * workers), asks `categorize` for each (the workspace's `ai_provider`/`ai_model` with the operator's
 * key, its `ai_daily_limit`, the rules otherwise) with no transaction open, then applies each category
 * in its own transaction with its effects (`CategoryEffects`: only if still unset). A process that dies
 * between the two leaves a lease that expires: the reply is taken again, and nothing was applied or
 * counted yet. A reply applied twice is impossible: the second `setCategory` finds it set.
 *
 * Woken in-process when ingestion records a reply (`notifyReplyRecorded`, reply-recorded.ts); otherwise every few
 * seconds. Nothing of a reply, a prompt or an answer is logged.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Draining } from '../../common/lifecycle/draining.js';
import { logger } from '../../common/logging/logger.js';
import { metrics, workspaceLabels } from '../../common/metrics/metrics.js';
import { appConfig } from '../../config/app-config.js';
import { effectiveConfig } from '../workspaces/workspace-config.js';
import { AiDailyLimit } from './ai-daily-limit.js';
import { categorize, type CategorizeResult } from './categorize.js';
import { CategoryEffects } from './category-effects.js';
import {
  ReplyCategoryWritesRepository,
  type ClaimedReply,
} from '../threads/reply-category-writes.repository.js';
import { onReplyRecorded } from './reply-recorded.js';
import { asWorkspaceId } from '../../common/tenant/workspace-id.js';

/** Replies claimed per pass, and decided at once within it (each may wait up to the AI bound). */
export const CATEGORIZE_BATCH = 16;
const CONCURRENCY = 4;
/**
 * A claim's lease: far beyond a pass (4 rounds of at most 10 s calls and a transaction each), so a
 * live process never loses its claim, and a dead one's replies are taken again within minutes.
 */
export const CATEGORIZE_LEASE_SECONDS = 180;

@Injectable()
export class ReplyCategorizer {
  readonly intervalMs = 5_000;
  private loop: { wake(): void } | null = null;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly replies: ReplyCategoryWritesRepository,
    private readonly dailyLimit: AiDailyLimit,
    private readonly draining: Draining,
    private readonly effects: CategoryEffects,
  ) {}

  bindLoop(loop: { wake(): void }): void {
    this.loop = loop;
    const off = onReplyRecorded(() => this.loop?.wake());
    this.draining.onBegin(off);
  }

  /** One batch; true when it came back full (more may be waiting). */
  async sweepOnce(batch = CATEGORIZE_BATCH): Promise<boolean> {
    if (this.draining.active) return false;
    const claimed = await this.replies.claimUncategorisedAcrossWorkspaces(batch, CATEGORIZE_LEASE_SECONDS);
    if (claimed.length === 0) return false;
    const queue = [...claimed];
    const skipped: number[] = [];
    const outcomes: Record<string, number> = {};
    const worker = async (): Promise<void> => {
      for (let reply = queue.shift(); reply; reply = queue.shift()) {
        if (this.draining.active) {
          skipped.push(reply.id);
          continue;
        }
        let outcome: string;
        try {
          const result = await this.decide(reply);
          const applied = await this.ds.transaction((m) =>
            this.effects.apply(m, {
              workspaceId: asWorkspaceId(reply.workspace_id),
              messageId: reply.id,
              category: result.category,
              source: result.source,
              onlyIfUnset: true,
            }),
          );
          outcome = applied ? `${result.source}${result.fallback ? `:${result.fallback}` : ''}` : 'already';
          if (applied) {
            metrics().replyCategories.inc(
              workspaceLabels(
                { source: result.source, fallback: result.fallback ?? 'none' },
                reply.workspace_id,
              ),
            );
          }
        } catch (err) {
          // Left leased: taken again once the lease expires. The error names no reply text.
          logger.error({ messageId: reply.id, err }, 'reply not categorised; retried later');
          outcome = 'failed';
        }
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, claimed.length) }, worker));
    } finally {
      // A draining process gives back what it did not start, so another worker takes it at once.
      await this.replies.releaseClaimsAcrossWorkspaces(skipped);
    }
    logger.info({ count: claimed.length, outcomes }, 'replies categorised');
    return claimed.length >= batch && !this.draining.active;
  }

  private decide(reply: ClaimedReply): Promise<CategorizeResult> {
    const config = effectiveConfig(reply.config);
    const ai = appConfig().ai;
    return categorize(reply.body ?? '', {
      provider: config.ai_provider,
      model: config.ai_model,
      apiKeys: ai.apiKeys,
      baseUrls: ai.baseUrls,
      timeoutMs: ai.timeoutMs,
      allowCall: () => this.dailyLimit.tryConsume(asWorkspaceId(reply.workspace_id), config.ai_daily_limit),
    });
  }
}
