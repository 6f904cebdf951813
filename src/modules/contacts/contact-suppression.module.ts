import { Global, Module } from '@nestjs/common';
import { SUPPRESSED_CONTACTS } from '../suppressions/suppressed-contacts.js';
import { ContactWritesRepository } from './contact-writes.repository.js';

/**
 * Provides the suppressions module's SUPPRESSED_CONTACTS port everywhere (global), so that the
 * suppression store writes the contacts' copy of an entry through the contacts module, which owns the
 * table, without suppressions importing contacts (contacts import suppressions). The contacts module
 * imports it, so every composition root with contacts has it.
 */
@Global()
@Module({
  providers: [
    ContactWritesRepository,
    { provide: SUPPRESSED_CONTACTS, useExisting: ContactWritesRepository },
  ],
  exports: [SUPPRESSED_CONTACTS],
})
export class ContactSuppressionModule {}
