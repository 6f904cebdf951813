/**
 * APP_ROLE, observed on the built service as deployed: an `api` process serves HTTP and
 * registers no Bull processor; a `worker` process registers processors and opens no HTTP port.
 * Bull names every processing connection `<prefix>:<base64(queue)>` (what Queue#getWorkers reads),
 * so `CLIENT LIST` on the shared Redis shows which processes consume which queue.
 */
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { QueueName } from '../../src/common/queue/queues.js';
import { freePort, type Service, startService, useProcesses } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const prefix = `${process.env.REDIS_PREFIX}:roles`;

/** `node dist/main.js` in `role` with PORT=`port`, on its own Bull queues; resolves once it is ready. */
function start(role: 'api' | 'worker', port: number): Promise<Service> {
  return startService({ role, port, env: { REDIS_PREFIX: prefix, SEND_TICK_MS: '60000' } });
}

/** SIGTERM (SIGKILL after 20 s); resolves with the exit code. */
async function stop(service: Service | undefined): Promise<number | null> {
  if (!service) return null;
  await service.stop(20_000);
  return service.child.exitCode;
}

function listening(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      ok(true);
    });
    socket.once('error', () => ok(false));
  });
}

describe('process roles', () => {
  useProcesses();
  let redis: Redis;
  let api: Service | undefined;
  let worker: Service | undefined;

  /** Names of the queues some process currently consumes, from the Redis client names Bull sets. */
  const consumedQueues = async (): Promise<string[]> => {
    const list = (await redis.client('LIST')) as string;
    const names = new Set<string>();
    for (const queue of Object.values(QueueName)) {
      const clientName = `${prefix}:bull:${Buffer.from(queue).toString('base64')}`;
      if (list.split('\n').some((line) => line.includes(` name=${clientName} `))) names.add(queue);
    }
    return [...names].sort();
  };

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
  });

  afterAll(() => redis?.disconnect());

  it('APP_ROLE=api serves HTTP and runs no Bull processor', async () => {
    const port = await freePort();
    api = await start('api', port);
    const live = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(ready.status).toBe(200);
    const me = await fetch(`http://127.0.0.1:${port}/api/v1/me`);
    expect(me.status).toBe(401);
    expect(await consumedQueues()).toEqual([]);
    expect(api.output()).not.toContain('workers ready');
  }, 120_000);

  it('APP_ROLE=worker runs the processors and opens no HTTP port', async () => {
    const port = await freePort();
    worker = await start('worker', port);
    const queues = await waitFor(async () => {
      const q = await consumedQueues();
      return q.length ? q : undefined;
    }, 'a Bull processor to connect');
    expect(queues).toContain(QueueName.Imports);
    expect(await listening(port)).toBe(false);
    expect(worker.output()).not.toContain('listening on');
    expect(worker.child.exitCode).toBeNull();
  }, 120_000);

  it('both roles shut down cleanly on SIGTERM', async () => {
    expect(await stop(api)).toBe(0);
    expect(await stop(worker)).toBe(0);
    expect(await consumedQueues()).toEqual([]);
  }, 60_000);
});
