/** Every migration, in order. Generate new ones with `npm run migration:generate -- Name`, then list them here. */
import { Init1795318086464 } from './1795318086464-Init.js';

export const MIGRATIONS: Array<new () => object> = [Init1795318086464];
