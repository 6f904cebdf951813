import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the analytics issue fills it in. */
@Module({})
export class AnalyticsModule {}
