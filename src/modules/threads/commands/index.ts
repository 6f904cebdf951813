import type { Type } from '@nestjs/common';

/** Admin CLI commands of the threads module (registered in CliModule). */
export const THREADS_COMMANDS: Array<Type<unknown>> = [];
