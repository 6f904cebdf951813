import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { Inbox } from './entities/inbox.entity.js';

@Injectable()
export class InboxesRepository extends TenantRepository<Inbox> {
  constructor(@InjectRepository(Inbox) repo: Repository<Inbox>) {
    super(repo);
  }
}
