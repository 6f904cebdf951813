import type { Type } from '@nestjs/common';

/** Admin CLI commands of the enrollments module (registered in CliModule). */
export const ENROLLMENTS_COMMANDS: Array<Type<unknown>> = [];
