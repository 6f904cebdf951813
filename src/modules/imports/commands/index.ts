import type { Type } from '@nestjs/common';
import { ImportRunner } from '../import-runner.js';
import { ImportsRepository } from '../imports.repository.js';
import { ImportsService } from '../imports.service.js';
import { ImportCommand } from './import.command.js';

/**
 * Admin CLI commands of the imports module (registered in CliModule), plus the providers they need:
 * the CLI module imports no ImportsModule (that one registers a Bull queue, and the CLI runs no Redis).
 */
export const IMPORTS_COMMANDS: Array<Type<unknown>> = [
  ImportCommand,
  ImportsRepository,
  ImportsService,
  ImportRunner,
];
