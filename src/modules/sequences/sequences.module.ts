import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the sequences issue fills it in. */
@Module({})
export class SequencesModule {}
