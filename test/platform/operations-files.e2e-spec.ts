/**
 * The deployment files in docker/ stay in step with the service: every compose service has a
 * healthcheck, the service containers get the 30 s the drain needs, Prometheus scrapes the ports
 * the API and the worker listen on, and every metric the Grafana dashboard queries exists.
 * (`docker compose config` validates the file's syntax where Docker is installed: docs/operations.md.)
 */
import { readFileSync } from 'node:fs';
// js-yaml comes with @nestjs/swagger; only this test reads YAML.
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
// @ts-ignore no type declarations installed
import * as yaml from 'js-yaml';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { buildMetrics } from '../../src/common/metrics/metrics.js';

type Doc = Record<string, unknown>;
const load = (path: string): Doc =>
  (yaml as { load(s: string): unknown }).load(readFileSync(path, 'utf8')) as Doc;

/** Applies YAML merge keys (`<<: *anchor`), which js-yaml leaves as they are. */
function merged(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(merged);
  if (!node || typeof node !== 'object') return node;
  const { '<<': base, ...rest } = node as Doc;
  const out: Doc = base ? { ...(merged(base) as Doc) } : {};
  for (const [k, v] of Object.entries(rest)) {
    const value = merged(v);
    out[k] =
      out[k] && typeof out[k] === 'object' && typeof value === 'object'
        ? { ...(out[k] as Doc), ...(value as Doc) }
        : value;
  }
  return out;
}

describe('docker/ deployment files', () => {
  const compose = merged(load('docker/compose.yaml')) as { services: Record<string, Doc> };

  it('compose: every service has a healthcheck; api and worker get 30 s to drain', () => {
    const services = Object.keys(compose.services);
    expect(services).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'api', 'worker', 'prometheus', 'grafana']),
    );
    for (const name of services) {
      const check = compose.services[name].healthcheck as { test?: unknown } | undefined;
      expect({ name, test: Array.isArray(check?.test) }).toEqual({ name, test: true });
    }
    for (const name of ['api', 'worker']) {
      expect(compose.services[name].stop_grace_period).toBe('30s');
      expect((compose.services[name].environment as Doc).APP_ROLE).toBe(name);
    }
    expect(compose.services.prometheus.profiles).toEqual(['monitoring']);
  });

  it('prometheus.yml scrapes the API port and the worker METRICS_PORT', () => {
    const prom = load('docker/prometheus.yml') as {
      scrape_configs: Array<{ job_name: string; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    const target = (job: string) => prom.scrape_configs.find((s) => s.job_name === job)!.dns_sd_configs[0];
    expect(target('outreach-api')).toMatchObject({ names: ['api'], port: 3000 });
    const workerPort = Number((compose.services.worker.environment as Doc).METRICS_PORT);
    expect(target('outreach-worker')).toMatchObject({ names: ['worker'], port: workerPort });
  });

  it('/metrics is closed by default: no METRICS_PUBLIC unless asked, and Prometheus presents the token', () => {
    for (const name of ['api', 'worker']) {
      const env = compose.services[name].environment as Doc;
      expect({ name, open: env.METRICS_PUBLIC }).toEqual({ name, open: '${METRICS_PUBLIC:-false}' });
      expect({ name, token: env.METRICS_TOKEN }).toEqual({ name, token: '${METRICS_TOKEN:-}' });
    }
    expect((compose.services.prometheus.environment as Doc).METRICS_TOKEN).toBe('${METRICS_TOKEN:-}');
    expect(JSON.stringify(compose.services.prometheus.entrypoint)).toContain('/prometheus/metrics_token');
    const prom = load('docker/prometheus.yml') as {
      scrape_configs: Array<{ job_name: string; authorization?: { type: string; credentials_file: string } }>;
    };
    for (const job of prom.scrape_configs) {
      expect({ job: job.job_name, auth: job.authorization }).toEqual({
        job: job.job_name,
        auth: { type: 'Bearer', credentials_file: '/prometheus/metrics_token' },
      });
    }
  });

  it('the Grafana dashboard queries only metrics the service exports', async () => {
    const registry = new Registry();
    buildMetrics(registry, { workspaceLabels: false });
    collectDefaultMetrics({ register: registry });
    const known = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const dashboard = JSON.parse(readFileSync('docker/grafana/outreach-dashboard.json', 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    const used = new Set<string>();
    for (const panel of dashboard.panels)
      for (const { expr } of panel.targets)
        for (const [name] of expr.matchAll(/\b(outreach|process|nodejs)_[a-z0-9_]+/g))
          used.add(name.replace(/_(bucket|count|sum)$/, ''));
    const unknown = [...used].filter((n) => !known.has(n));
    expect(unknown).toEqual([]);
    for (const series of [
      'outreach_sends_total',
      'outreach_due_enrollments_lag_seconds',
      'outreach_queue_jobs',
      'outreach_http_request_duration_seconds',
    ])
      expect(used).toContain(series);
  });
});
