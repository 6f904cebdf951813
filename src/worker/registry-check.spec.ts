import { Process, Processor } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { registryProblems } from './registry-check.js';
import { JOBS, LOOPS, type JobSpec, type LoopSpec } from './worker.registry.js';

@Processor('reports')
@Injectable()
class ReportsProcessor {
  @Process('build-report')
  async handle(): Promise<void> {}
}

const job = (name: string, queue = 'reports'): JobSpec =>
  ({ queue, name, processor: ReportsProcessor }) as unknown as JobSpec;
const loop = (name: string): LoopSpec => ({ ...LOOPS[0], name });

describe('worker registry check', () => {
  it('accepts the registry as declared (every job handled, every queue used)', () => {
    expect(registryProblems(LOOPS, JOBS)).toEqual([]);
  });

  it('accepts a job whose processor handles it on its queue', () => {
    expect(registryProblems([], [job('build-report')], ['reports'])).toEqual([]);
  });

  it('names a declared job without a handler', () => {
    expect(registryProblems([], [job('send-report')], ['reports'])).toEqual([
      'job "send-report" has no @Process("send-report") handler on ReportsProcessor',
    ]);
  });

  it('names a job declared on a queue its processor does not listen on', () => {
    expect(registryProblems([], [job('build-report', 'mail')], ['mail'])).toEqual([
      'job "build-report": ReportsProcessor is not a @Processor of queue "mail"',
    ]);
  });

  it('names a queue with no job (a dead queue name)', () => {
    expect(registryProblems([], [job('build-report')], ['reports', 'maintenance'])).toEqual([
      'queue "maintenance" is declared but no job uses it',
    ]);
  });

  it('names a loop declared twice', () => {
    expect(registryProblems([loop('send'), loop('send')], [], [])).toEqual(['loop "send" is declared twice']);
  });
});
