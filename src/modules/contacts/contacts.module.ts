import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { ContactImportsRepository } from './contact-imports.repository.js';
import { ContactSuppressionModule } from './contact-suppression.module.js';
import { ContactUpsert } from './contact-upsert.js';
import { ContactVerificationRepository } from './contact-verification.repository.js';
import { ContactWritesRepository } from './contact-writes.repository.js';
import { ContactsController } from './contacts.controller.js';
import { ContactsRepository } from './contacts.repository.js';
import { ContactsService } from './contacts.service.js';
import { Contact } from './entities/contact.entity.js';

/**
 * Contacts API, and the one writer of `contacts`: other modules call `ContactUpsert` (imports) and
 * `ContactWritesRepository` (stages, the suppression copy through `ContactSuppressionModule`) and
 * `ContactImportsRepository` (an import chunk's rows). Pure
 * pieces are reused directly: `validateContactRow` (contact-upsert.ts), `toContactView` (contact.view.ts).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Contact]), EventsModule, SuppressionsModule, ContactSuppressionModule],
  controllers: [ContactsController],
  providers: [
    ContactsService,
    ContactsRepository,
    ContactWritesRepository,
    ContactImportsRepository,
    ContactUpsert,
    ContactVerificationRepository,
  ],
  exports: [
    ContactsService,
    ContactsRepository,
    ContactWritesRepository,
    ContactImportsRepository,
    ContactUpsert,
    ContactVerificationRepository,
  ],
})
export class ContactsModule {}
