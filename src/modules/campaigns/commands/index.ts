import type { Type } from '@nestjs/common';

/** Admin CLI commands of the campaigns module (registered in CliModule). */
export const CAMPAIGNS_COMMANDS: Array<Type<unknown>> = [];
