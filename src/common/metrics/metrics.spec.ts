import { Registry } from 'prom-client';
import { buildMetrics } from './metrics.js';
import { routeTemplate } from './http-metrics.js';

describe('metrics', () => {
  it('carry no workspace label unless the operator opts in', async () => {
    const plain = buildMetrics(new Registry(), { workspaceLabels: false });
    plain.sends.inc({ outcome: 'sent' });
    expect(() => plain.sends.inc({ outcome: 'sent', workspace_id: 'w1' } as never)).toThrow();
    const registry = new Registry();
    const labelled = buildMetrics(registry, { workspaceLabels: true });
    labelled.sends.inc({ outcome: 'sent', workspace_id: 'w1' });
    expect(await registry.metrics()).toContain('outreach_sends_total{outcome="sent",workspace_id="w1"} 1');
  });

  it('label a request with its route template, or "unmatched"', () => {
    expect(routeTemplate({ baseUrl: '', route: { path: '/api/v1/contacts/:contact' } })).toBe(
      '/api/v1/contacts/:contact',
    );
    expect(routeTemplate({ baseUrl: '/api/v1', route: { path: '/x/:id' } })).toBe('/api/v1/x/:id');
    expect(routeTemplate({ baseUrl: '' })).toBe('unmatched');
  });
});
