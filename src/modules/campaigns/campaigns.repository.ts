import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { Campaign } from './entities/campaign.entity.js';

@Injectable()
export class CampaignsRepository extends TenantRepository<Campaign> {
  constructor(@InjectRepository(Campaign) repo: Repository<Campaign>) {
    super(repo);
  }
}
