import type { Type } from '@nestjs/common';

/** Admin CLI commands of the imports module (registered in CliModule). */
export const IMPORTS_COMMANDS: Array<Type<unknown>> = [];
