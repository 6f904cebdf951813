import { Module } from '@nestjs/common';
import { EnrollmentsModule } from '../enrollments/enrollments.module.js';
import { Reactions } from './reactions.js';

/**
 * Sequences that react: what happens to a contact after mail arrives (`Reactions`), called by inbound
 * mail and by the reply categories in their transactions.
 */
@Module({
  imports: [EnrollmentsModule],
  providers: [Reactions],
  exports: [Reactions],
})
export class ReactionsModule {}
