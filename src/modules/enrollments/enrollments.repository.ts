import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { Enrollment } from './entities/enrollment.entity.js';

@Injectable()
export class EnrollmentsRepository extends TenantRepository<Enrollment> {
  constructor(@InjectRepository(Enrollment) repo: Repository<Enrollment>) {
    super(repo);
  }
}
