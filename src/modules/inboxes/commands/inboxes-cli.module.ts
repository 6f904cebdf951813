import { Module } from '@nestjs/common';
import { InboxesModule } from '../inboxes.module.js';
import { InboxConnectCommand } from './inbox-connect.command.js';

/** `inbox:connect`. */
@Module({ imports: [InboxesModule], providers: [InboxConnectCommand] })
export class InboxesCliModule {}
