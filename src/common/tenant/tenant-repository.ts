/**
 * The tenant is part of every query's type: reads and writes take `workspaceId` first and the
 * `where` object cannot omit it. A forgotten WHERE is a compile error, not a leak.
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

export interface TenantScoped extends ObjectLiteral {
  workspaceId: string;
}

export type TenantWhere<T extends TenantScoped> = Omit<FindOptionsWhere<T>, 'workspaceId'>;

export abstract class TenantRepository<T extends TenantScoped> {
  protected constructor(protected readonly repo: Repository<T>) {}

  protected scoped(workspaceId: string, where: TenantWhere<T> = {} as TenantWhere<T>): FindOptionsWhere<T> {
    return { ...where, workspaceId } as FindOptionsWhere<T>;
  }

  /** A query builder already filtered to the tenant, for lists and reports. */
  query(workspaceId: string, alias: string, manager?: EntityManager): SelectQueryBuilder<T> {
    const repo = manager ? manager.getRepository<T>(this.repo.target) : this.repo;
    return repo.createQueryBuilder(alias).where(`${alias}.workspaceId = :workspaceId`, { workspaceId });
  }

  findOne(workspaceId: string, where: TenantWhere<T>, manager?: EntityManager): Promise<T | null> {
    const repo = manager ? manager.getRepository<T>(this.repo.target) : this.repo;
    return repo.findOne({ where: this.scoped(workspaceId, where) });
  }

  findMany(
    workspaceId: string,
    where: TenantWhere<T> = {} as TenantWhere<T>,
    order?: FindOptionsOrder<T>,
    manager?: EntityManager,
  ): Promise<T[]> {
    const repo = manager ? manager.getRepository<T>(this.repo.target) : this.repo;
    return repo.find({ where: this.scoped(workspaceId, where), order });
  }

  /** Locks the row for the rest of the transaction. */
  findOneForUpdate(workspaceId: string, where: TenantWhere<T>, manager: EntityManager): Promise<T | null> {
    return manager.getRepository<T>(this.repo.target).findOne({
      where: this.scoped(workspaceId, where),
      lock: { mode: 'pessimistic_write' },
    });
  }

  async insert(workspaceId: string, values: DeepPartial<T>, manager?: EntityManager): Promise<T> {
    const repo = manager ? manager.getRepository<T>(this.repo.target) : this.repo;
    return repo.save(repo.create({ ...values, workspaceId } as DeepPartial<T>));
  }

  async update(
    workspaceId: string,
    where: TenantWhere<T>,
    patch: QueryDeepPartialEntity<T>,
    manager?: EntityManager,
  ): Promise<number> {
    const repo = manager ? manager.getRepository<T>(this.repo.target) : this.repo;
    const result = await repo.update(this.scoped(workspaceId, where), patch);
    return result.affected ?? 0;
  }

  count(
    workspaceId: string,
    where: TenantWhere<T> = {} as TenantWhere<T>,
    manager?: EntityManager,
  ): Promise<number> {
    const repo = manager ? manager.getRepository<T>(this.repo.target) : this.repo;
    return repo.count({ where: this.scoped(workspaceId, where) });
  }
}
