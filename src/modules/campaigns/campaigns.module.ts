import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the campaigns issue fills it in. */
@Module({})
export class CampaignsModule {}
