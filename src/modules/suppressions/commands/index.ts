import type { Type } from '@nestjs/common';

/** Admin CLI commands of the suppressions module (registered in CliModule). */
export const SUPPRESSIONS_COMMANDS: Array<Type<unknown>> = [];
