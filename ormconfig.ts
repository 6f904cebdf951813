/** TypeORM data source for the TypeORM CLI; the app and `npm run cli -- migrate` use the same options. */
import { createDataSource } from './src/database/data-source.js';

export default createDataSource();
