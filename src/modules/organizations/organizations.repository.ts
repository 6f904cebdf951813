import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Organization } from './entities/organization.entity.js';

/**
 * Organizations: the top of the tenant tree (an organization owns workspaces), so they are scoped by
 * their own id. Created and changed only by the admin CLI.
 */
@Injectable()
export class OrganizationsRepository {
  constructor(@InjectRepository(Organization) private readonly orgs: Repository<Organization>) {}

  insert(values: Partial<Organization>): Promise<Organization> {
    return this.orgs.save(this.orgs.create(values));
  }

  update(organizationId: string, org: Organization): Promise<Organization> {
    if (org.id !== organizationId) throw new Error('organization id mismatch');
    return this.orgs.save(org);
  }

  findById(organizationId: string): Promise<Organization | null> {
    return this.orgs.findOne({ where: { id: organizationId } });
  }

  /** How many organizations exist (start-up: is this a fresh installation?). */
  async countAll(): Promise<number> {
    return this.orgs.count();
  }
}
