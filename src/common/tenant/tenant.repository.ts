/**
 * The tenant is part of every query's type: reads and writes take `workspaceId` first and the
 * `where` object cannot name it. A forgotten tenant filter is a compile error, not a leak. The id is a
 * `WorkspaceId` (./workspace-id.ts), so another string passed in its place is a compile error too.
 *
 * `TenantScope` is the query helper: it cannot be built without a workspace id, and every statement it
 * builds carries `workspace_id = <that id>`. `TenantRepository` is the base of ORM-backed repositories:
 * its ORM repository is private; subclasses reach rows through `scope()` (one workspace) or, for the
 * few methods named `…AcrossWorkspaces` (worker claims, lookups before the tenant is known),
 * `unscoped()`.
 */
import type {
  DeepPartial,
  EntityManager,
  FindOptionsOrder,
  FindOptionsWhere,
  ObjectLiteral,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { WorkspaceId } from './workspace-id.js';

export interface TenantScoped extends ObjectLiteral {
  workspaceId: WorkspaceId;
}

export type TenantWhere<T extends TenantScoped> = Omit<FindOptionsWhere<T>, 'workspaceId'>;

/** Statements of one workspace. */
export class TenantScope<T extends TenantScoped> {
  constructor(
    private readonly repo: Repository<T>,
    readonly workspaceId: WorkspaceId,
  ) {
    if (typeof workspaceId !== 'string' || workspaceId.length === 0) {
      throw new Error('a tenant scope needs a workspace id');
    }
  }

  where(where: TenantWhere<T> = {} as TenantWhere<T>): FindOptionsWhere<T> {
    return { ...where, workspaceId: this.workspaceId } as FindOptionsWhere<T>;
  }

  /** A query builder already filtered to the workspace, for lists and reports. */
  queryBuilder(alias: string): SelectQueryBuilder<T> {
    return this.repo
      .createQueryBuilder(alias)
      .where(`${alias}.workspaceId = :workspaceId`, { workspaceId: this.workspaceId });
  }

  findOne(where: TenantWhere<T>): Promise<T | null> {
    return this.repo.findOne({ where: this.where(where) });
  }

  find(where: TenantWhere<T> = {} as TenantWhere<T>, order?: FindOptionsOrder<T>): Promise<T[]> {
    return this.repo.find({ where: this.where(where), order });
  }

  /** Locks the row for the rest of the transaction. */
  findOneForUpdate(where: TenantWhere<T>): Promise<T | null> {
    return this.repo.findOne({ where: this.where(where), lock: { mode: 'pessimistic_write' } });
  }

  /** Share-locks the row for the rest of the transaction (others may read it, not change it). */
  findOneForShare(where: TenantWhere<T>): Promise<T | null> {
    return this.repo.findOne({ where: this.where(where), lock: { mode: 'pessimistic_read' } });
  }

  insert(values: DeepPartial<T>): Promise<T> {
    return this.repo.save(this.repo.create({ ...values, workspaceId: this.workspaceId } as DeepPartial<T>));
  }

  async update(where: TenantWhere<T>, patch: QueryDeepPartialEntity<T>): Promise<number> {
    const result = await this.repo.update(this.where(where), patch);
    return result.affected ?? 0;
  }

  count(where: TenantWhere<T> = {} as TenantWhere<T>): Promise<number> {
    return this.repo.count({ where: this.where(where) });
  }
}

export abstract class TenantRepository<T extends TenantScoped> {
  readonly #repo: Repository<T>;

  protected constructor(repo: Repository<T>) {
    this.#repo = repo;
  }

  /** The ORM repository, bound to `manager`'s transaction when one is given. */
  #orm(manager?: EntityManager): Repository<T> {
    return manager ? manager.getRepository<T>(this.#repo.target) : this.#repo;
  }

  /** Statements of one workspace (in `manager`'s transaction when given). */
  protected scope(workspaceId: WorkspaceId, manager?: EntityManager): TenantScope<T> {
    return new TenantScope(this.#orm(manager), workspaceId);
  }

  /** The ORM repository without a tenant filter: only for methods named `…AcrossWorkspaces`. */
  protected unscoped(manager?: EntityManager): Repository<T> {
    return this.#orm(manager);
  }

  /** A query builder already filtered to the tenant, for lists and reports. */
  protected query(workspaceId: WorkspaceId, alias: string, manager?: EntityManager): SelectQueryBuilder<T> {
    return this.scope(workspaceId, manager).queryBuilder(alias);
  }

  findOne(workspaceId: WorkspaceId, where: TenantWhere<T>, manager?: EntityManager): Promise<T | null> {
    return this.scope(workspaceId, manager).findOne(where);
  }

  findMany(
    workspaceId: WorkspaceId,
    where: TenantWhere<T> = {} as TenantWhere<T>,
    order?: FindOptionsOrder<T>,
    manager?: EntityManager,
  ): Promise<T[]> {
    return this.scope(workspaceId, manager).find(where, order);
  }

  /** Locks the row for the rest of the transaction. */
  findOneForUpdate(
    workspaceId: WorkspaceId,
    where: TenantWhere<T>,
    manager: EntityManager,
  ): Promise<T | null> {
    return this.scope(workspaceId, manager).findOneForUpdate(where);
  }

  insert(workspaceId: WorkspaceId, values: DeepPartial<T>, manager?: EntityManager): Promise<T> {
    return this.scope(workspaceId, manager).insert(values);
  }

  /** Subclasses expose named methods over it (what changes, and why); services do not patch rows. */
  protected update(
    workspaceId: WorkspaceId,
    where: TenantWhere<T>,
    patch: QueryDeepPartialEntity<T>,
    manager?: EntityManager,
  ): Promise<number> {
    return this.scope(workspaceId, manager).update(where, patch);
  }

  count(
    workspaceId: WorkspaceId,
    where: TenantWhere<T> = {} as TenantWhere<T>,
    manager?: EntityManager,
  ): Promise<number> {
    return this.scope(workspaceId, manager).count(where);
  }
}
