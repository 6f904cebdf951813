/** The one TypeORM configuration: used by the app, the CLI, tests and ormconfig.ts. */
import { DataSource, type DataSourceOptions } from 'typeorm';
import { appConfig } from '../config/app-config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';
import { SnakeNamingStrategy } from './naming.strategy.js';
import './int8.js';

export function dataSourceOptions(url = appConfig().databaseUrl): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    logging: false,
    extra: {
      max: Number(process.env.DB_POOL_SIZE || 20),
      application_name: 'outreach',
      // A PostgreSQL that accepts TCP but never answers fails a checkout after 5 s (→ 503
      // service_unavailable) instead of holding the request forever (docs/trust/edge.md).
      connectionTimeoutMillis: 5000,
    },
  };
}

/**
 * The options of the Nest applications (API, workers, CLI): the entities are the ones their modules
 * register with `TypeOrmModule.forFeature` (autoLoadEntities), so a module lists its own tables.
 * `ENTITIES` (entities.ts) is the same set for the tools that run without Nest (migrations, drift
 * check); test/database/schema.e2e-spec.ts fails if the two differ.
 */
export function nestDataSourceOptions(): DataSourceOptions & { autoLoadEntities: true } {
  return { ...dataSourceOptions(), entities: [], autoLoadEntities: true };
}

export function createDataSource(url?: string): DataSource {
  return new DataSource(dataSourceOptions(url));
}
