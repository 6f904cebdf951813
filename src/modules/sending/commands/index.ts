import type { Type } from '@nestjs/common';

/** Admin CLI commands of the sending module (registered in CliModule). */
export const SENDING_COMMANDS: Array<Type<unknown>> = [];
