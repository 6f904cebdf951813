import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { Sequence } from './entities/sequence.entity.js';

@Injectable()
export class SequencesRepository extends TenantRepository<Sequence> {
  constructor(@InjectRepository(Sequence) repo: Repository<Sequence>) {
    super(repo);
  }
}
