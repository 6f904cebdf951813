import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { sendError } from '../../common/http/exception.filter.js';
import type { ServiceRequest } from '../../common/http/request-context.js';
import { workerProviders } from '../../common/queue/worker-providers.js';
import { ImapPoller } from './imap-poller.service.js';
import { INBOUND_LIMIT, InboundController } from './inbound.controller.js';
import { IngestionService } from './ingestion.service.js';
import { RetentionService } from './retention.service.js';
import { SendEngine } from './send-engine.service.js';
import { SendingWorker } from './sending.worker.js';
import { SmtpTransportPool } from './smtp-transport.pool.js';
import { UnsubscribeController } from './unsubscribe.controller.js';
import { UnsubscribeService } from './unsubscribe.service.js';

const rawParser = express.raw({ type: () => true, limit: INBOUND_LIMIT });

/** Raw bytes for the inbound route, whatever the content type; errors (413) in the error envelope. */
function inboundBody(req: Request, res: Response, next: NextFunction): void {
  rawParser(req, res, (err?: unknown) => {
    if (err) {
      sendError(err, req as ServiceRequest, res);
      return;
    }
    next();
  });
}

/**
 * The sending engine and mail ingestion (CONTRACT §5): the scheduler and send path, SMTP transport
 * pool, unsubscribe pages, the inbound route, IMAP polling and the retention purge.
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
export class SendingModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(inboundBody).forRoutes({ path: 'inbound/*path', method: RequestMethod.POST });
  }
}
