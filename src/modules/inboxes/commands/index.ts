import type { Type } from '@nestjs/common';

/** Admin CLI commands of the inboxes module (registered in CliModule). */
export const INBOXES_COMMANDS: Array<Type<unknown>> = [];
