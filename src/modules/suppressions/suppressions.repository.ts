import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { Suppression } from './entities/suppression.entity.js';

@Injectable()
export class SuppressionsRepository extends TenantRepository<Suppression> {
  constructor(@InjectRepository(Suppression) repo: Repository<Suppression>) {
    super(repo);
  }
}
