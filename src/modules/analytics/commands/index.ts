import type { Type } from '@nestjs/common';

/** Admin CLI commands of the analytics module (registered in CliModule). */
export const ANALYTICS_COMMANDS: Array<Type<unknown>> = [];
