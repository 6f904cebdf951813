import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Suppression } from './entities/suppression.entity.js';
import { SuppressionsController } from './suppressions.controller.js';
import { SuppressionsRepository } from './suppressions.repository.js';
import { SuppressionsService } from './suppressions.service.js';

/**
 * Suppression list API. The sending engine suppresses bounced/unsubscribed addresses with
 * `suppressAddress(manager, workspaceId, email, reason)` from suppression-store.ts, in its own
 * transaction.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Suppression])],
  controllers: [SuppressionsController],
  providers: [SuppressionsService, SuppressionsRepository],
  exports: [SuppressionsRepository],
})
export class SuppressionsModule {}
