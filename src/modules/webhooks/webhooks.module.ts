import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the webhooks issue fills it in. */
@Module({})
export class WebhooksModule {}
