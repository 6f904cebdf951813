import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the suppressions issue fills it in. */
@Module({})
export class SuppressionsModule {}
