import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/http/api-error.js';
import { isUuid } from '../../common/http/id-params.js';
import type { Organization } from './entities/organization.entity.js';
import { OrganizationsRepository } from './organizations.repository.js';

export interface PlanInput {
  maxWorkspaces?: number;
  maxContactsPerWorkspace?: number;
  importRowCap?: number;
  rateLimit?: number | null;
}

export interface PlanView {
  max_workspaces: number;
  max_contacts_per_workspace: number;
  import_row_cap: number;
  rate_limit: number | null;
}

export const planOf = (o: Organization): PlanView => ({
  max_workspaces: o.maxWorkspaces,
  max_contacts_per_workspace: o.maxContactsPerWorkspace,
  import_row_cap: o.importRowCap,
  rate_limit: o.rateLimit,
});

function checkPlan(plan: PlanInput): void {
  const positive = (v: number | null | undefined, flag: string): void => {
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 0 || v > 100_000_000)) {
      throw ApiError.validation(flag, `${flag} must be a non-negative integer`);
    }
  };
  positive(plan.maxWorkspaces, 'max_workspaces');
  positive(plan.maxContactsPerWorkspace, 'max_contacts_per_workspace');
  positive(plan.importRowCap, 'import_row_cap');
  if (
    plan.rateLimit !== undefined &&
    plan.rateLimit !== null &&
    (!Number.isInteger(plan.rateLimit) || plan.rateLimit < 1)
  ) {
    throw ApiError.validation('rate_limit', 'rate_limit must be a positive integer');
  }
}

@Injectable()
export class OrganizationsService {
  constructor(private readonly orgs: OrganizationsRepository) {}

  async create(name: string, plan: PlanInput = {}): Promise<Organization> {
    if (!name.trim() || name.length > 200)
      throw ApiError.validation('name', 'name must be 1 to 200 characters');
    checkPlan(plan);
    return this.orgs.insert({ name: name.trim(), ...this.definedPlan(plan) });
  }

  async setPlan(id: string, plan: PlanInput): Promise<Organization> {
    checkPlan(plan);
    const org = await this.get(id);
    Object.assign(org, this.definedPlan(plan));
    return this.orgs.update(org.id, org);
  }

  async get(id: string): Promise<Organization> {
    const org = isUuid(id) ? await this.orgs.findById(id) : null;
    if (!org) throw ApiError.notFound('Organization');
    return org;
  }

  private definedPlan(plan: PlanInput): Partial<Organization> {
    return Object.fromEntries(
      Object.entries(plan).filter(([, v]) => v !== undefined),
    ) as Partial<Organization>;
  }
}
