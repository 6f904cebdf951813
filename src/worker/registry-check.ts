import { QueueName } from '../common/queue/queues.js';
import type { JobSpec, LoopSpec } from './worker.registry.js';

/**
 * The metadata keys @nestjs/bull's `@Processor` and `@Process` set (not exported by the package);
 * the registry's unit test decorates a class with the real decorators, so a change shows there.
 */
const BULL_MODULE_QUEUE = 'bull:module_queue';
const BULL_MODULE_QUEUE_PROCESS = 'bull:module_queue_process';

/**
 * What `checkWorkerRegistry` verifies, without starting anything: every declared job has a
 * `@Process(name)` handler on its processor, which listens on the declared queue; every queue name
 * has at least one job; loop names are unique. Returns the problems found (empty when sound).
 */
export function registryProblems(
  loops: LoopSpec[],
  jobs: JobSpec[],
  queues: string[] = Object.values(QueueName),
): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const loop of loops) {
    if (names.has(loop.name)) problems.push(`loop "${loop.name}" is declared twice`);
    names.add(loop.name);
  }
  for (const job of jobs) {
    const queueMeta = Reflect.getMetadata(BULL_MODULE_QUEUE, job.processor) as { name?: string } | undefined;
    if (queueMeta?.name !== job.queue) {
      problems.push(`job "${job.name}": ${job.processor.name} is not a @Processor of queue "${job.queue}"`);
    }
    const proto = job.processor.prototype as Record<string, unknown>;
    const handled = Object.getOwnPropertyNames(proto).some((key) => {
      const fn = proto[key];
      if (typeof fn !== 'function') return false;
      const meta = Reflect.getMetadata(BULL_MODULE_QUEUE_PROCESS, fn) as { name?: string } | undefined;
      return meta?.name === job.name;
    });
    if (!handled)
      problems.push(`job "${job.name}" has no @Process("${job.name}") handler on ${job.processor.name}`);
  }
  for (const queue of queues) {
    if (!jobs.some((j) => j.queue === queue))
      problems.push(`queue "${queue}" is declared but no job uses it`);
  }
  return problems;
}

/** Throws (the process does not start) when the registry is not sound. */
export function checkWorkerRegistry(loops: LoopSpec[], jobs: JobSpec[]): void {
  const problems = registryProblems(loops, jobs);
  if (problems.length) throw new Error(`worker registry: ${problems.join('; ')}`);
}
