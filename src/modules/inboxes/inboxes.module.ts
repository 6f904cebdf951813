import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the inboxes issue fills it in. */
@Module({})
export class InboxesModule {}
