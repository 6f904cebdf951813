import type { Type } from '@nestjs/common';
import { InboxConnectCommand } from './inbox-connect.command.js';

/** Admin CLI commands of the inboxes module (registered in CliModule). */
export const INBOXES_COMMANDS: Array<Type<unknown>> = [InboxConnectCommand];
