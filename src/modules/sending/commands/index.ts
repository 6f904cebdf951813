import type { Type } from '@nestjs/common';
import { DemoCommand } from './demo.command.js';
import { MailSinkCommand } from './mail-sink.command.js';

/** Admin CLI commands of the sending module (registered in CliModule). */
export const SENDING_COMMANDS: Array<Type<unknown>> = [DemoCommand, MailSinkCommand];
