import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/analytics.module.js';
import { ReactionsModule } from '../reactions/reactions.module.js';
import { EventsModule } from '../events/events.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { CategoryEffects } from './category-effects.js';
import { AiDailyLimit } from './ai-daily-limit.js';
import { ReplyCategoriesController } from './reply-categories.controller.js';
import { ReplyCategoriesRepository } from './reply-categories.repository.js';
import { ReplyCategoriesService } from './reply-categories.service.js';
import { CategoryApplier, ReplyAiCategorizer, ReplyCategorizer } from './reply-categorizer.service.js';

/**
 * Reply categories (CONTRACT §20): `categorize` (rules and the workspace's AI provider), the
 * `reply-categorize` (rules) and `reply-categorize-ai` (providers, round-robin across workspaces) loops
 * that decide recorded replies (worker role), their effects, and
 * `PATCH /threads/{id}` to correct one.
 */
@Module({
  imports: [ThreadsModule, AnalyticsModule, ReactionsModule, EventsModule],
  controllers: [ReplyCategoriesController],
  providers: [
    CategoryEffects,
    ReplyCategoriesRepository,
    ReplyCategoriesService,
    ReplyCategorizer,
    ReplyAiCategorizer,
    CategoryApplier,
    AiDailyLimit,
  ],
  exports: [ReplyCategorizer, ReplyAiCategorizer],
})
export class ReplyCategoriesModule {}
