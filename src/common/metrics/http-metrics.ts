/**
 * HTTP request metrics: one count and one latency observation per answered request, labelled with
 * the route template Express matched (`/api/v1/contacts/:id`), never the raw path (ids, tokens,
 * unbounded cardinality). A request no route matched (404 before routing, a body refused by
 * middleware) is labelled `unmatched`.
 */
import type { Request, Response } from 'express';
import type { Counter, Histogram } from 'prom-client';
import { metrics } from './metrics.js';

/** The route template of a request Express routed, or `unmatched`. */
export function routeTemplate(req: Pick<Request, 'baseUrl'> & { route?: { path?: unknown } }): string {
  const path = req.route?.path;
  if (typeof path !== 'string') return 'unmatched';
  return `${req.baseUrl ?? ''}${path}` || '/';
}

interface Children {
  count: Counter.Internal;
  latency: Histogram.Internal<string>;
}

/** Label children by "method route status", so a request costs one map lookup, not a label hash. */
const children = new Map<string, Children>();

/** Records one finished request that took `seconds`. */
export function observeRequest(req: Request, res: Response, seconds: number): void {
  const route = routeTemplate(req);
  const status = String(res.statusCode);
  const key = `${req.method} ${route} ${status}`;
  let c = children.get(key);
  if (!c) {
    const m = metrics();
    const labels = { method: req.method, route, status };
    c = { count: m.httpRequests.labels(labels), latency: m.httpDuration.labels(labels) };
    children.set(key, c);
  }
  c.count.inc();
  c.latency.observe(seconds);
}
