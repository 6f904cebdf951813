import type { Type } from '@nestjs/common';

/** Admin CLI commands of the sequences module (registered in CliModule). */
export const SEQUENCES_COMMANDS: Array<Type<unknown>> = [];
