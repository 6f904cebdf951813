import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the imports issue fills it in. */
@Module({})
export class ImportsModule {}
