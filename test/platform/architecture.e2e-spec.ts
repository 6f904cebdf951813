/**
 * The architecture's rules, checked on the source so that they cannot drift (docs/architecture.md):
 * data access only in repositories, repository methods scoped to a tenant by their first parameter,
 * `common/` independent of `modules/`, one naming convention for views, small files.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import {
  arrows,
  codeModuleMap,
  cycles,
  declaredModuleMap,
  declaredTableOwners,
  mutualImports,
  writesOutsideOwner,
} from '../helpers/module-map.js';

const SRC = join(process.cwd(), 'src');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const files = sourceFiles(SRC).map((path) => ({
  path,
  rel: relative(SRC, path),
  text: readFileSync(path, 'utf8'),
}));
const production = files.filter((f) => !f.rel.endsWith('.spec.ts'));

/** Ways to reach the database. Anything matching outside the allowed places is a violation. */
const DATA_ACCESS: Array<[RegExp, string]> = [
  [/\.query\s*[<(]/, 'query()'],
  [/createQueryBuilder\s*\(/, 'createQueryBuilder()'],
  [/getRepository\s*[<(]/, 'getRepository()'],
  [/\bpgPool\s*\(/, 'pgPool()'],
  [/@InjectRepository\s*\(/, '@InjectRepository()'],
  [/\brows\s*(<[^>]*>)?\s*\(\s*(this\.|m\b|manager|tx|em\b|db\b)/, 'rows(manager, sql)'],
  [
    /\b(manager|m|tx|em|ds|db|this\.ds|this\.db|this\.dataSource)\.(find\w*|save|insert|update|delete|count|increment|upsert|exists|createQueryBuilder|getRepository)\b/,
    'EntityManager/DataSource CRUD',
  ],
  [/\bqueryRunner\b/, 'queryRunner'],
];

/**
 * Where data access is allowed: repositories (the tenant base class is one), database infrastructure
 * and tooling, and the keyset page helpers, which run the query a repository builds and hands them.
 */
const mayAccessData = (rel: string): boolean =>
  rel.endsWith('.repository.ts') ||
  rel.startsWith('database/') ||
  rel.startsWith('scripts/') ||
  rel === 'common/http/pagination.ts';

/** A call split over lines (`rows<T>(\n  m,`) is checked as one line. */
const joinedCalls = (text: string): string => text.replace(/\(\s*\n\s*/g, '(');

describe('architecture', () => {
  it('issues queries only from *.repository.ts files (and database infrastructure)', () => {
    const violations: string[] = [];
    for (const f of production) {
      if (mayAccessData(f.rel)) continue;
      joinedCalls(f.text)
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\*|\/\/)/.test(line)) return;
          for (const [re, what] of DATA_ACCESS) {
            if (re.test(line)) {
              violations.push(`${f.rel}:${i + 1} ${what}: ${line.trim()}`);
              break;
            }
          }
        });
    }
    expect(violations).toEqual([]);
  });

  it('scopes every repository method: workspace id first, or a name saying it spans workspaces', () => {
    const violations: string[] = [];
    for (const f of production.filter((x) => x.rel.endsWith('.repository.ts'))) {
      const sf = ts.createSourceFile(f.path, f.text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isMethodDeclaration(node) && node.body) {
          const mods = ts.getModifiers(node) ?? [];
          // Private and protected methods are not callable from services; a TenantScope is built with
          // its workspace id, so its methods are scoped by construction.
          const isPrivate =
            mods.some(
              (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
            ) ||
            ts.isPrivateIdentifier(node.name) ||
            (ts.isClassDeclaration(node.parent) && node.parent.name?.text === 'TenantScope');
          const isStatic = mods.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
          const name = node.name.getText(sf);
          const first = node.parameters[0]?.name.getText(sf);
          const scoped =
            // The tenant first: a workspace, an organization (provisioning, workspaces themselves), or
            // an idempotency scope (`ws:<id>` / `org:<id>`).
            ['workspaceId', 'organizationId', 'tenant'].includes(first ?? '') ||
            /AcrossWorkspaces$/.test(name) ||
            // Organizations are the top of the tenant tree: each is its own scope.
            f.rel === 'modules/organizations/organizations.repository.ts';
          if (!isPrivate && !isStatic && !scoped) {
            violations.push(`${f.rel}: ${name}(${first ?? ''})`);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    expect(violations).toEqual([]);
  });

  it('keeps common/ independent of modules/', () => {
    const violations = production
      .filter((f) => f.rel.startsWith('common/'))
      .filter(
        (f) => /from\s+'(\.\.\/)+modules\//.test(f.text) || /import\(\s*'(\.\.\/)+modules\//.test(f.text),
      )
      .map((f) => f.rel);
    expect(violations).toEqual([]);
  });

  describe('the module map (docs/architecture.md)', () => {
    const code = codeModuleMap(SRC);
    const declared = declaredModuleMap(join(process.cwd(), 'docs', 'architecture.md'));

    it('has every arrow the code has, and no arrow the code lacks', () => {
      const inCode = arrows(code);
      const inDoc = arrows(declared);
      expect({ undeclared: inCode.filter((a) => !inDoc.includes(a)) }).toEqual({ undeclared: [] });
      expect({ stale: inDoc.filter((a) => !inCode.includes(a)) }).toEqual({ stale: [] });
      expect([...declared.keys()].sort()).toEqual([...code.keys()].sort());
    });

    it('has no two modules importing each other, and no longer cycle', () => {
      expect(mutualImports(code)).toEqual([]);
      expect(cycles(code)).toEqual([]);
    });

    it('sees every form of import: named, type-only, re-export, bare (side effect) and dynamic', () => {
      const dir = mkdtempSync(join(tmpdir(), 'module-map-'));
      try {
        const forms: Record<string, string> = {
          a: "import { B } from '../b/b.js';",
          c: "import type { D } from '../d/d.js';",
          e: "export { F } from '../f/f.js';",
          g: "import '../h/h.module.js';",
          i: "const j = await import('../j/j.js');",
        };
        for (const [from, line] of Object.entries(forms)) {
          mkdirSync(join(dir, 'modules', from), { recursive: true });
          writeFileSync(join(dir, 'modules', from, `${from}.ts`), `${line}\n`);
        }
        expect(arrows(codeModuleMap(dir))).toEqual(['a -> b', 'c -> d', 'e -> f', 'g -> h', 'i -> j']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('catches an import outside the map (checked on a copy of the map with one more arrow)', () => {
      const withExtra = new Map([...code].map(([k, v]) => [k, new Set(v)]));
      withExtra.get('suppressions')!.add('contacts');
      expect(arrows(withExtra).filter((a) => !arrows(declared).includes(a))).toEqual([
        'suppressions -> contacts',
      ]);
      expect(mutualImports(withExtra)).toEqual(['contacts <-> suppressions']);
    });
  });

  describe('table owners (docs/architecture.md)', () => {
    const DOC = join(process.cwd(), 'docs', 'architecture.md');
    const owners = declaredTableOwners(DOC);

    it('declares an owner for every table of the schema', () => {
      const created = new Set<string>();
      for (const f of readdirSync(join(SRC, 'database', 'migrations'))) {
        const text = readFileSync(join(SRC, 'database', 'migrations', f), 'utf8');
        for (const m of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_]+)"?/g)) created.add(m[1]);
        for (const m of text.matchAll(/DROP TABLE (?:IF EXISTS )?"?([a-z_]+)"?/g)) created.delete(m[1]);
      }
      created.delete('migrations');
      expect([...created].filter((t) => !owners.has(t)).sort()).toEqual([]);
    });

    it('has every table written only by its owner module', () => {
      expect(writesOutsideOwner(SRC, owners)).toEqual([]);
    });

    it('catches a write from another module (checked on a copy of the tree with one more)', () => {
      const dir = mkdtempSync(join(tmpdir(), 'table-owners-'));
      try {
        mkdirSync(join(dir, 'modules', 'sending'), { recursive: true });
        mkdirSync(join(dir, 'modules', 'inboxes'), { recursive: true });
        mkdirSync(join(dir, 'common', 'x'), { recursive: true });
        writeFileSync(
          join(dir, 'modules', 'sending', 'a.repository.ts'),
          "const A = `UPDATE inboxes SET last_error = $1`;\nconst B = 'SELECT 1 FROM inboxes FOR UPDATE';\n",
        );
        writeFileSync(
          join(dir, 'modules', 'inboxes', 'b.repository.ts'),
          "const C = 'UPDATE inboxes SET x = 1';\n",
        );
        writeFileSync(
          join(dir, 'common', 'x', 'c.ts'),
          'const D = `DELETE FROM inboxes`; // and INSERT INTO events\n',
        );
        expect(writesOutsideOwner(dir, owners)).toEqual([
          'common/x/c.ts:1 events (events)',
          'common/x/c.ts:1 inboxes (inboxes)',
          'modules/sending/a.repository.ts:1 inboxes (inboxes)',
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('names views <domain>.view.ts', () => {
    expect(files.map((f) => f.rel).filter((rel) => /[-_]view\.ts$/.test(rel))).toEqual([]);
  });

  it('keeps every source file under 450 lines', () => {
    // Sample data (fixtures/) is text to read, not code to follow: it is not held to the size of code.
    const long = files
      .filter((f) => !f.rel.includes('/fixtures/'))
      .map((f) => ({ rel: f.rel, lines: f.text.split('\n').length }))
      .filter((f) => f.lines > 450)
      .map((f) => `${f.rel}: ${f.lines}`);
    expect(long).toEqual([]);
  });
});
