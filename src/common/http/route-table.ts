/**
 * The table of known routes, read from the Express router once the app is initialised, so an
 * unknown method on a known path answers 405 with Allow instead of 404.
 */
import type { Request } from 'express';

interface RouteEntry {
  regex: RegExp;
  methods: Set<string>;
}

let table: RouteEntry[] = [];

/** Express 5's `app.all()` registers the route once per HTTP method (30+); no real route has this many. */
const ALL_METHODS_THRESHOLD = 16;

function toRegex(path: string): RegExp {
  const escaped = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}

export function registerRoutes(routes: Array<{ path: string; method: string }>): void {
  const byPath = new Map<string, Set<string>>();
  for (const r of routes) {
    const set = byPath.get(r.path) ?? new Set<string>();
    set.add(r.method.toUpperCase());
    byPath.set(r.path, set);
  }
  table = [...byPath.entries()].map(([path, methods]) => ({ regex: toRegex(path), methods }));
}

/** Routes declared on an Express 5 app (router.stack layers with a route). */
export function routesOfExpressApp(app: {
  router?: { stack: unknown[] };
  _router?: { stack: unknown[] };
}): Array<{
  path: string;
  method: string;
}> {
  const stack = (app.router ?? app._router)?.stack ?? [];
  const out: Array<{ path: string; method: string }> = [];
  for (const layer of stack as Array<{ route?: { path: string; methods: Record<string, boolean> } }>) {
    if (!layer.route || typeof layer.route.path !== 'string') continue;
    const methods = Object.entries(layer.route.methods).filter(([, on]) => on);
    // `app.all()` (Nest's not-found handler on excluded paths) enables every method: not a real route.
    if (layer.route.methods._all || methods.length >= ALL_METHODS_THRESHOLD) continue;
    for (const [m] of methods) out.push({ path: layer.route.path, method: m });
  }
  return out;
}

/**
 * The methods a known path allows when `req.method` is not one of them; undefined when the path is
 * unknown or the method is allowed. Matches the full URL path: Nest's not-found handler runs inside a
 * router mounted on the global prefix, where `req.path` has the prefix stripped.
 */
export function methodNotAllowed(req: Pick<Request, 'method' | 'originalUrl' | 'url'>): string[] | undefined {
  const path = (req.originalUrl || req.url).split(/[?#]/)[0];
  for (const entry of table) {
    if (entry.regex.test(path)) {
      if (entry.methods.has(req.method.toUpperCase())) return undefined;
      const allowed = [...entry.methods];
      if (allowed.includes('GET')) allowed.push('HEAD');
      return allowed;
    }
  }
  return undefined;
}
