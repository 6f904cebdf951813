import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the threads issue fills it in. */
@Module({})
export class ThreadsModule {}
