import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Suppression } from './entities/suppression.entity.js';
import { SuppressionStore } from './suppression-store.js';
import { SuppressionsController } from './suppressions.controller.js';
import { SuppressionListRepository, SuppressionsRepository } from './suppressions.repository.js';
import { SuppressionsService } from './suppressions.service.js';

/**
 * Suppression list API. Other modules add to the list (bounces, unsubscribes, complaints) and take
 * its lock through `SuppressionStore` (suppression-store.ts), in their own transaction; the contacts'
 * copy of an entry is written by the contacts module (`SUPPRESSED_CONTACTS`, suppressed-contacts.ts).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Suppression])],
  controllers: [SuppressionsController],
  providers: [SuppressionsService, SuppressionsRepository, SuppressionListRepository, SuppressionStore],
  exports: [SuppressionsRepository, SuppressionStore],
})
export class SuppressionsModule {}
