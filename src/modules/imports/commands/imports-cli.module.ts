import { Module } from '@nestjs/common';
import { ImportsCoreModule } from '../imports-core.module.js';
import { ImportCommand } from './import.command.js';

/** `import`: runs the import inline with the workers' runner (no queue, no Redis). */
@Module({ imports: [ImportsCoreModule], providers: [ImportCommand] })
export class ImportsCliModule {}
