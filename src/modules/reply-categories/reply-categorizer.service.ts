/**
 * Replies are categorised after they were recorded, so ingestion never waits for a classifier or a
 * provider (CONTRACT §20), in two steps that keep one workspace from delaying another's (§26):
 *
 * 1. **The rules** (`reply-categorize`, `ReplyCategorizer`): every reply, oldest first, in large
 *    batches; the built-in rules are pure and take microseconds. A reply whose workspace asks no
 *    provider (none set, no allowed model or key, an empty reply) is decided here. So is a reply the
 *    rules read as a written opt-out, whatever the workspace's provider: the opt-out applies at once,
 *    never behind anyone's queue or a provider's answer. The others wait for the AI step
 *    (`category_awaiting_ai`), which is woken.
 * 2. **The AI** (`reply-categorize-ai`, `ReplyAiCategorizer`): a pass claims `AI_SLOTS` waiting replies
 *    round-robin across workspaces (`claimAwaitingAiAcrossWorkspaces`) and asks each workspace's
 *    provider at once, each call bounded (10 s); a failure falls back to the rules. A workspace whose
 *    provider hangs holds at most its turn of the slots for one bound, so another workspace's reply
 *    waits at most one bound for a slot, whatever the first one's backlog.
 *
 * Both claim with a lease (FOR UPDATE SKIP LOCKED: any number of workers) and apply each category in
 * its own transaction with its effects (`CategoryEffects`: only if still unset), with no transaction
 * open during a provider call. A process that dies leaves a lease that expires: the reply is taken
 * again, and nothing was applied or counted yet. Nothing of a reply, a prompt or an answer is logged.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Draining } from '../../common/lifecycle/draining.js';
import { logger } from '../../common/logging/logger.js';
import { metrics, workspaceLabels } from '../../common/metrics/metrics.js';
import { isAiModelAllowed } from '../../config/ai-models.js';
import { appConfig } from '../../config/app-config.js';
import { effectiveConfig } from '../workspaces/workspace-config.js';
import { AiDailyLimit } from './ai-daily-limit.js';
import { categorize, rulesFirst, type CategorizeResult, type CategorizeSettings } from './categorize.js';
import { CategoryEffects } from './category-effects.js';
import {
  ReplyCategoryWritesRepository,
  type ClaimedReply,
} from '../threads/reply-category-writes.repository.js';
import { onReplyRecorded } from './reply-recorded.js';
import { asWorkspaceId } from '../../common/tenant/workspace-id.js';

/** Replies the rules step claims per pass (pure work: a pass takes milliseconds plus a transaction each). */
export const CATEGORIZE_BATCH = 64;
/** Provider calls in flight per process and AI pass; each bounded by the AI timeout. */
export const AI_SLOTS = 4;
/**
 * A claim's lease: far beyond a pass (one round of at most 10 s calls and a transaction each), so a
 * live process never loses its claim, and a dead one's replies are taken again within minutes.
 */
export const CATEGORIZE_LEASE_SECONDS = 180;

/** Applies decided categories, each in its own transaction, counting outcomes for the log and metrics. */
@Injectable()
export class CategoryApplier {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly effects: CategoryEffects,
    private readonly dailyLimit: AiDailyLimit,
  ) {}

  /** The categorize settings of a claimed reply's workspace, within the operator's caps. */
  settingsFor(reply: ClaimedReply): CategorizeSettings {
    const config = effectiveConfig(reply.config);
    const ai = appConfig().ai;
    const limit = Math.min(config.ai_daily_limit, ai.dailyLimitMax);
    return {
      provider: config.ai_provider,
      model: config.ai_model,
      apiKeys: ai.apiKeys,
      baseUrls: ai.baseUrls,
      timeoutMs: ai.timeoutMs,
      allowModel: (provider, model) => isAiModelAllowed(ai.models, provider, model),
      allowCall: () => this.dailyLimit.tryConsume(asWorkspaceId(reply.workspace_id), limit),
    };
  }

  /** Applies one result; the outcome's name (`rules`, `ai`, `rules:timeout`, `already`, `failed`). */
  async apply(reply: ClaimedReply, decide: () => Promise<CategorizeResult>): Promise<string> {
    try {
      const result = await decide();
      const applied = await this.ds.transaction((m) =>
        this.effects.apply(m, {
          workspaceId: asWorkspaceId(reply.workspace_id),
          messageId: reply.id,
          category: result.category,
          source: result.source,
          onlyIfUnset: true,
        }),
      );
      if (!applied) return 'already';
      metrics().replyCategories.inc(
        workspaceLabels({ source: result.source, fallback: result.fallback ?? 'none' }, reply.workspace_id),
      );
      return `${result.source}${result.fallback ? `:${result.fallback}` : ''}`;
    } catch (err) {
      // Left leased: taken again once the lease expires. The error names no reply text.
      logger.error({ messageId: reply.id, err }, 'reply not categorised; retried later');
      return 'failed';
    }
  }
}

/** Step 2: the workspaces' AI providers, round-robin across workspaces. */
@Injectable()
export class ReplyAiCategorizer {
  readonly intervalMs = 5_000;
  private loop: { wake(): void } | null = null;

  constructor(
    private readonly replies: ReplyCategoryWritesRepository,
    private readonly draining: Draining,
    private readonly applier: CategoryApplier,
  ) {}

  bindLoop(loop: { wake(): void }): void {
    this.loop = loop;
  }

  wake(): void {
    this.loop?.wake();
  }

  /** One round of at most AI_SLOTS calls; true when the slots were full (more may be waiting). */
  async sweepOnce(slots = AI_SLOTS): Promise<boolean> {
    if (this.draining.active) return false;
    const claimed = await this.replies.claimAwaitingAiAcrossWorkspaces(slots, CATEGORIZE_LEASE_SECONDS);
    if (claimed.length === 0) return false;
    const outcomes: Record<string, number> = {};
    await Promise.all(
      claimed.map(async (reply) => {
        const outcome = await this.applier.apply(reply, () =>
          categorize(reply.body ?? '', this.applier.settingsFor(reply)),
        );
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }),
    );
    logger.info({ count: claimed.length, outcomes }, 'replies categorised (ai step)');
    return claimed.length >= slots && !this.draining.active;
  }
}

/** Step 1: the built-in rules, for every reply at once. */
@Injectable()
export class ReplyCategorizer {
  readonly intervalMs = 5_000;
  private loop: { wake(): void } | null = null;

  constructor(
    private readonly replies: ReplyCategoryWritesRepository,
    private readonly draining: Draining,
    private readonly applier: CategoryApplier,
    private readonly ai: ReplyAiCategorizer,
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
    const skipped: number[] = [];
    const awaiting: number[] = [];
    const outcomes: Record<string, number> = {};
    try {
      for (const reply of claimed) {
        if (this.draining.active) {
          skipped.push(reply.id);
          continue;
        }
        const first = rulesFirst(reply.body ?? '', this.applier.settingsFor(reply));
        // A written opt-out is applied now, whatever the provider would answer later.
        if (first.needsAi && first.result.category !== 'unsubscribe_request') {
          awaiting.push(reply.id);
          continue;
        }
        const outcome = await this.applier.apply(reply, () => Promise.resolve(first.result));
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    } finally {
      // A draining process gives back what it did not start, so another worker takes it at once.
      await this.replies.releaseClaimsAcrossWorkspaces(skipped);
      await this.replies.markAwaitingAiAcrossWorkspaces(awaiting);
    }
    if (awaiting.length > 0) {
      outcomes.awaiting_ai = awaiting.length;
      this.ai.wake();
    }
    logger.info({ count: claimed.length, outcomes }, 'replies categorised (rules step)');
    return claimed.length >= batch && !this.draining.active;
  }
}
