import { Module } from '@nestjs/common';

/** Placeholder registered in AppModule; the contacts issue fills it in. */
@Module({})
export class ContactsModule {}
