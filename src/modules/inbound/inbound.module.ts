import { Module } from '@nestjs/common';
import { ImapPoller } from './imap-poller.service.js';
import { InboundController } from './inbound.controller.js';
import { InboundRepository } from './inbound.repository.js';
import { IngestionService } from './ingestion.service.js';

/**
 * Inbound mail: replies, auto-replies and bounces, by IMAP polling (`ImapPoller`, run by the worker
 * role) and by `POST /inbound/{inbox_id}` for MTA pipes. Both hand raw messages to `IngestionService`,
 * which classifies them and applies their effects. The inbound route reads its own body, after
 * checking the inbox's inbound secret.
 */
@Module({
  controllers: [InboundController],
  providers: [InboundRepository, IngestionService, ImapPoller],
  exports: [IngestionService, ImapPoller],
})
export class InboundModule {}
