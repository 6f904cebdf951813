import {
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Loop } from '../common/worker/loop.js';
import { Draining } from '../common/lifecycle/draining.js';
import { workerProviders } from '../common/queue/worker-providers.js';
import { appConfig } from '../config/app-config.js';
import { checkWorkerRegistry } from './registry-check.js';
import { JOBS, LOOPS, type LoopOwner } from './worker.registry.js';

const ownsLoop = (service: unknown): service is LoopOwner =>
  typeof (service as Partial<LoopOwner>).bindLoop === 'function';

/**
 * Runs the loops of the worker registry in processes of the worker role (APP_ROLE=all|worker):
 * checks the registry at start-up, starts each loop once every module has bootstrapped, and stops
 * them all (each waiting for its running pass) when the application closes.
 */
@Injectable()
export class WorkerRunner implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly loops: Loop[] = [];
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly draining: Draining,
  ) {}

  onModuleInit(): void {
    checkWorkerRegistry(LOOPS, JOBS);
  }

  onApplicationBootstrap(): void {
    const config = appConfig();
    for (const spec of LOOPS) {
      const service = this.moduleRef.get(spec.provider, { strict: false });
      const loop = new Loop({
        name: spec.name,
        pass: spec.pass(service),
        intervalMs: () => spec.intervalMs(config, service),
        errorMessage: spec.errorMessage,
      });
      if (ownsLoop(service)) service.bindLoop(loop);
      this.loops.push(loop);
      loop.start(spec.firstDelayMs(config, service));
    }
  }

  /** The loops of this process, by name (tests and diagnostics). */
  loop(name: string): Loop | undefined {
    return this.loops.find((l) => l.name === name);
  }

  /**
   * Shutdown: everything winds down (Draining: claims given back, no new unit started), then every
   * loop stops once its running pass has ended. main.ts calls it first on SIGTERM/SIGINT, before
   * Nest closes anything the passes use; closing the application calls it too (idempotent).
   */
  drain(): Promise<void> {
    this.draining.begin();
    this.stopped ??= Promise.all(this.loops.map((l) => l.stop())).then(() => undefined);
    return this.stopped;
  }

  async onModuleDestroy(): Promise<void> {
    await this.drain();
  }
}

/** The worker role's runner; an api-only process has none (it only enqueues). */
@Module({ providers: workerProviders(WorkerRunner) })
export class WorkerModule {}
