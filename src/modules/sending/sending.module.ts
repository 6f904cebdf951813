import { Module } from '@nestjs/common';
import { workerProviders } from '../../common/queue/worker-providers.js';
import { ImapPoller } from './imap-poller.service.js';
import { InboundController } from './inbound.controller.js';
import { IngestionService } from './ingestion.service.js';
import { RetentionService } from './retention.service.js';
import { SendEngine } from './send-engine.service.js';
import { SendingWorker } from './sending.worker.js';
import { SmtpTransportPool } from './smtp-transport.pool.js';
import { UnsubscribeController } from './unsubscribe.controller.js';
import { UnsubscribeService } from './unsubscribe.service.js';

/**
 * The sending engine and mail ingestion (CONTRACT §5): the scheduler and send path, SMTP transport
 * pool, unsubscribe pages, the inbound route, IMAP polling and the retention purge. The inbound
 * route reads its own body, after checking the inbound secret (no body middleware here).
 */
@Module({
  controllers: [UnsubscribeController, InboundController],
  providers: [
    SendEngine,
    SmtpTransportPool,
    IngestionService,
    ImapPoller,
    RetentionService,
    UnsubscribeService,
    ...workerProviders(SendingWorker),
  ],
  exports: [SendEngine, IngestionService, ImapPoller, RetentionService],
})
export class SendingModule {}
