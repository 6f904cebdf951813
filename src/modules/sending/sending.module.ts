import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the sending issue fills it in. */
@Module({})
export class SendingModule {}
