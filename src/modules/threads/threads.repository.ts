import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { Message } from './entities/message.entity.js';
import { Thread } from './entities/thread.entity.js';

@Injectable()
export class ThreadsRepository extends TenantRepository<Thread> {
  constructor(@InjectRepository(Thread) repo: Repository<Thread>) {
    super(repo);
  }
}

@Injectable()
export class MessagesRepository extends TenantRepository<Message> {
  constructor(@InjectRepository(Message) repo: Repository<Message>) {
    super(repo);
  }
}
