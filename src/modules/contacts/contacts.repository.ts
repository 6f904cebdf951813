import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { Contact } from './entities/contact.entity.js';

/** Contacts, always read and written inside one workspace. */
@Injectable()
export class ContactsRepository extends TenantRepository<Contact> {
  constructor(@InjectRepository(Contact) repo: Repository<Contact>) {
    super(repo);
  }
}
