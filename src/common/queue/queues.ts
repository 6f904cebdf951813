/**
 * Bull queue names, in one place. Each queue's jobs carry the tenant id in their payload; every name
 * here must have a job in the worker registry (src/worker/worker.registry.ts), checked at start-up.
 */
export enum QueueName {
  Imports = 'imports',
}
