import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContactsController } from './contacts.controller.js';
import { ContactsRepository } from './contacts.repository.js';
import { ContactsService } from './contacts.service.js';
import { Contact } from './entities/contact.entity.js';

/**
 * Contacts API. Other modules reuse the pure pieces directly: `upsertContacts`/`validateContactRow`
 * (contact-upsert.ts) for imports, `toContactView` (contact-view.ts) for event payloads.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Contact])],
  controllers: [ContactsController],
  providers: [ContactsService, ContactsRepository],
  exports: [ContactsRepository],
})
export class ContactsModule {}
