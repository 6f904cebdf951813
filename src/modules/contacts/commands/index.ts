import type { Type } from '@nestjs/common';

/** Admin CLI commands of the contacts module (registered in CliModule). */
export const CONTACTS_COMMANDS: Array<Type<unknown>> = [];
