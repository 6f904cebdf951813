import { Module } from '@nestjs/common';
import { ThreadsModule } from '../threads/threads.module.js';
import { AiDailyLimit } from './ai-daily-limit.js';
import { ReplyCategoriesController } from './reply-categories.controller.js';
import { ReplyCategoriesRepository } from './reply-categories.repository.js';
import { ReplyCategoriesService } from './reply-categories.service.js';
import { ReplyCategorizer } from './reply-categorizer.service.js';

/**
 * Reply categories (CONTRACT §20): `categorize` (rules and the workspace's AI provider), the
 * `reply-categorize` sweep that decides recorded replies (worker role), their effects, and
 * `PATCH /threads/{id}` to correct one.
 */
@Module({
  imports: [ThreadsModule],
  controllers: [ReplyCategoriesController],
  providers: [ReplyCategoriesRepository, ReplyCategoriesService, ReplyCategorizer, AiDailyLimit],
  exports: [ReplyCategorizer],
})
export class ReplyCategoriesModule {}
