/**
 * The module map (issue 26): which module under src/modules/ imports which, read from the code, and the
 * map docs/architecture.md declares (its fenced `module-map` block: `module -> dep, dep`). The
 * architecture test holds the two equal, so a new arrow must be declared (and reviewed) and the doc
 * cannot drift from the code.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export type ModuleMap = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) out.push(path);
  }
  return out;
}

/** `contacts` for src/modules/contacts/..., null outside src/modules/. */
function moduleOf(src: string, path: string): string | null {
  const parts = relative(src, path).split(sep);
  return parts[0] === 'modules' && parts.length > 2 ? parts[1] : null;
}

/** `from '…'` (imports and re-exports), a bare `import '…'`, and a dynamic `import('…')`. */
const IMPORT = /(?:\bfrom\s+|\bimport\s+|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every arrow between two modules the code has (type-only imports included: they couple too). */
export function codeModuleMap(src: string): ModuleMap {
  const map: ModuleMap = new Map();
  for (const file of sourceFiles(join(src, 'modules'))) {
    const from = moduleOf(src, file)!;
    if (!map.has(from)) map.set(from, new Set());
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = moduleOf(src, resolve(dirname(file), m[1]));
      if (to && to !== from) map.get(from)!.add(to);
    }
  }
  return map;
}

/** The map declared in docs/architecture.md's ```module-map block. */
export function declaredModuleMap(doc: string): ModuleMap {
  const block = /```module-map\n([\s\S]*?)```/.exec(readFileSync(doc, 'utf8'))?.[1];
  if (!block) throw new Error(`${doc} has no \`\`\`module-map block`);
  const map: ModuleMap = new Map();
  for (const line of block.split('\n')) {
    const m = /^\s*([a-z0-9-]+)\s*->\s*(.*)$/.exec(line);
    if (!m) continue;
    map.set(
      m[1],
      new Set(
        m[2]
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s && s !== '—'),
      ),
    );
  }
  return map;
}

/** `a -> b` lines, sorted: what one map has and the other lacks. */
export function arrows(map: ModuleMap): string[] {
  return [...map].flatMap(([from, tos]) => [...tos].map((to) => `${from} -> ${to}`)).sort();
}

/** Pairs of modules that import each other (directly). */
export function mutualImports(map: ModuleMap): string[] {
  const out: string[] = [];
  for (const [a, tos] of map) for (const b of tos) if (a < b && map.get(b)?.has(a)) out.push(`${a} <-> ${b}`);
  return out.sort();
}

/** Any longer cycle (a -> ... -> a), as its path; empty when the map is a DAG. */
export function cycles(map: ModuleMap): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string): void => {
    state.set(n, 'open');
    stack.push(n);
    for (const next of map.get(n) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of [...map.keys()].sort()) if (!state.has(n)) visit(n);
  return found;
}

/**
 * Table owners as docs/architecture.md declares them: the rows of its ownership table, whose first
 * cell names the module (`contacts`, `common/idempotency`) and whose second names its tables in
 * backticks (`contacts`, `workspace_contact_counts`); any words after a table name are its note.
 */
export function declaredTableOwners(doc: string): Map<string, string> {
  const owners = new Map<string, string>();
  for (const line of readFileSync(doc, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const module = /^`([a-z0-9/-]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!module || cells.length < 4) continue;
    for (const t of (cells[2] ?? '').matchAll(/`([a-z_]+)`/g)) owners.set(t[1], module);
  }
  return owners;
}

/** `contacts` for src/modules/contacts/..., `common/idempotency` for src/common/idempotency/... */
function ownerOf(src: string, path: string): string {
  const parts = relative(src, path).split(sep);
  return parts[0] === 'modules' ? parts[1] : `${parts[0]}/${parts[1]}`;
}

/** SQL that writes a table: `INSERT INTO t`, `UPDATE t` (not `FOR UPDATE`), `DELETE FROM t`. */
const WRITE = /\b(?:INSERT\s+INTO|(?<!FOR\s)(?<!FOR NO KEY\s)UPDATE|DELETE\s+FROM)\s+([a-z_]+)\b/g;

/**
 * Every statement text under `src` (modules and common, not migrations) that writes a table listed in
 * `owners` from a module other than its owner, as `file:line table (owner)`. Comment lines are skipped.
 */
export function writesOutsideOwner(src: string, owners: Map<string, string>): string[] {
  const found: string[] = [];
  const files = ['modules', 'common'].flatMap((d) => sourceFiles(join(src, d)));
  for (const file of files) {
    const by = ownerOf(src, file);
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*(\*|\/\/|\/\*\*)/.test(line)) return;
        for (const m of line.matchAll(WRITE)) {
          const owner = owners.get(m[1]);
          if (owner && owner !== by) found.push(`${relative(src, file)}:${i + 1} ${m[1]} (${owner})`);
        }
      });
  }
  return found.sort();
}
