import type { Type } from '@nestjs/common';

/** Admin CLI commands of the webhooks module (registered in CliModule). */
export const WEBHOOKS_COMMANDS: Array<Type<unknown>> = [];
