import type { Provider } from '@nestjs/common';
import { runsWorkers } from '../../config/app-config.js';

/**
 * Bull processors and schedulers are registered only in processes that run workers
 * (APP_ROLE=all or worker); an APP_ROLE=api process only enqueues.
 */
export function workerProviders(...providers: Provider[]): Provider[] {
  return runsWorkers() ? providers : [];
}
