/**
 * Fault: Redis hangs, then dies, then comes back, while clients keep calling the API.
 *
 * Real processes: the service (`node dist/main.js`, APP_ROLE=all: API and workers) on a private
 * `redis-server` (test/helpers/faults-redis.ts). Two client loops send authenticated GETs and POSTs
 * the whole time. Redis is frozen with SIGSTOP (it accepts connections and never answers), resumed,
 * then SIGKILLed (connections refused, data gone) and restarted empty on the same port. An import is
 * posted while Redis is down. Proves (docs/api.md and docs/trust/README.md "Dependencies fail safe"): every response is
 * 2xx and arrives within REQUEST_BUDGET_MS throughout (the rate limiter fails open, Redis commands
 * time out), and the import queued while Redis was down completes once it is back.
 */
import { createFaultTenant, jsonClient, type JsonResponse } from '../helpers/faults-http.js';
import { sleep, startService, useProcesses, db } from '../helpers/processes.js';
import { startPrivateRedis, stopAllRedis, type PrivateRedis } from '../helpers/faults-redis.js';
import { waitFor } from '../helpers/wait.js';

/** "Each within a couple of seconds": Redis commands time out within 1 s. */
const REQUEST_BUDGET_MS = 2500;
/** A request still unanswered after this is recorded as failed (and the loop goes on). */
const CLIENT_TIMEOUT_MS = 6000;

type Phase = 'baseline' | 'hung' | 'resumed' | 'down' | 'restarted';

interface Sample {
  phase: Phase;
  what: string;
  status: number | null;
  ms: number;
  error?: string;
}

describe('fault: Redis stopped and restarted under traffic', () => {
  let redis: PrivateRedis;
  useProcesses({
    after: async () => {
      stopAllRedis();
      await redis?.stop();
    },
  });

  it('every response is 2xx and prompt throughout; an import queued while Redis was down completes', async () => {
    redis = await startPrivateRedis();
    const t = await createFaultTenant(db, {}, 1_000_000);
    const service = await startService({
      role: 'all',
      env: { REDIS_URL: redis.url, REDIS_PREFIX: 'faults-redis', SEND_TICK_MS: '1000' },
    });
    const http = jsonClient(service.url, t.token, CLIENT_TIMEOUT_MS);

    let phase: Phase = 'baseline';
    let running = true;
    const samples: Sample[] = [];
    const created: string[] = [];
    const record = async (what: string, call: () => Promise<JsonResponse>): Promise<JsonResponse | null> => {
      const at = phase;
      const started = performance.now();
      try {
        const res = await call();
        const type = (res.body as { error?: { type?: string } } | undefined)?.error?.type;
        samples.push({ phase: at, what, status: res.status, ms: res.ms, error: type });
        return res;
      } catch (err) {
        samples.push({ phase: at, what, status: null, ms: performance.now() - started, error: String(err) });
        return null;
      }
    };
    const loop = async (n: number): Promise<void> => {
      for (let i = 0; running; i++) {
        if (i % 3 === 0) await record('GET /contacts', () => http.get('/contacts?per_page=5'));
        else if (i % 3 === 1) await record('GET /me', () => http.get('/me'));
        else {
          const email = `traffic-${n}-${i}@example.com`;
          const res = await record('POST /contacts', () =>
            http.post('/contacts', { email, first_name: 'Tess' }),
          );
          if (res?.status === 200) created.push(email);
        }
        await sleep(25);
      }
    };
    const loops = [loop(1), loop(2)];

    let importId: number | undefined;
    try {
      await sleep(1500);
      phase = 'hung';
      redis.hang();
      await sleep(4000);
      redis.resume();
      phase = 'resumed';
      await sleep(1500);
      phase = 'down';
      await redis.kill();
      await sleep(500);
      const posted = await record('POST /contacts/import', () =>
        http.post('/contacts/import', {
          contacts: Array.from({ length: 5 }, (_, i) => ({ email: `queued-${i}@example.com` })),
        }),
      );
      importId = posted?.status === 202 ? (posted.body.data.id as number) : undefined;
      await sleep(3000);
      phase = 'restarted';
      await redis.restart();
      await sleep(3000);
    } finally {
      running = false;
      await Promise.all(loops);
    }

    const summary = (list: Sample[]): string =>
      list
        .slice(0, 12)
        .map(
          (s) =>
            `${s.phase} ${s.what} → ${s.status ?? s.error}${s.error && s.status ? ` ${s.error}` : ''} in ${Math.round(s.ms)} ms`,
        )
        .join('\n');
    const failed = samples.filter((s) => s.status === null || s.status < 200 || s.status >= 300);
    const slow = samples.filter((s) => s.ms > REQUEST_BUDGET_MS);
    // Traffic really flowed in every phase (a hung client would show up here as well).
    const perPhase = Object.fromEntries(
      (['baseline', 'hung', 'resumed', 'down', 'restarted'] as const).map((p) => [
        p,
        samples.filter((s) => s.phase === p).length,
      ]),
    );
    // Every accepted upsert is stored.
    const [{ stored }] = (await db.query(
      `SELECT count(*)::int AS stored FROM contacts WHERE workspace_id = $1 AND email = ANY($2::text[])`,
      [t.workspaceId, created],
    )) as Array<{ stored: number }>;
    // The import accepted while Redis was down runs now that it is back.
    const imported = importId
      ? await waitFor(
          async () => {
            const r = await http.get(`/imports/${importId}`);
            return ['completed', 'failed'].includes(r.body?.data?.status as string) ? r.body.data : undefined;
          },
          'the import queued while Redis was down to finish',
          30_000,
        ).catch(async () => (await http.get(`/imports/${importId}`)).body?.data)
      : 'not accepted';
    // One comparison, so that a failure shows every broken promise at once.
    expect({
      failed: failed.length,
      slow: slow.length,
      details: summary([...failed, ...slow]),
      phasesWithTraffic: Object.values(perPhase).filter((n) => n >= 3).length,
      alive: service.alive(),
      stored: stored === created.length,
      import:
        typeof imported === 'object'
          ? { status: imported?.status, created: imported?.created_count }
          : imported,
    }).toEqual({
      failed: 0,
      slow: 0,
      details: '',
      phasesWithTraffic: 5,
      alive: true,
      stored: true,
      import: { status: 'completed', created: 5 },
    });
  }, 180_000);
});
