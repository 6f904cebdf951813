/**
 * `npm install` is quiet on the Node versions `engines` promises (docs/testing.md, "A quiet install"):
 * every installed package (top level and nested) whose `engines.node` is set accepts the running
 * Node, which is what npm's EBADENGINE warning checks, and every peer dependency that is installed is
 * in its declared range, except a peer `package.json` overrides to the project's own version on
 * purpose (`"<package>": { "<peer>": "$<peer>" }`), which is what npm's ERESOLVE warning is about.
 * CI runs on Node 20, the lowest supported, so a dependency update that needs a newer Node fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// semver comes with npm's own dependencies (jest, typescript-eslint); only this test uses it.
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
// @ts-ignore no type declarations installed
import semverModule from 'semver';

const semver = semverModule as {
  satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean;
};
/** As npm-install-checks compares them. */
const satisfies = (version: string, range: string) =>
  semver.satisfies(version, range, { includePrerelease: true });

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  peerDependencies?: Record<string, string>;
  overrides?: Record<string, string | Record<string, string>>;
}
interface Installed {
  dir: string;
  manifest: Manifest;
}

const readManifest = (dir: string): Manifest | null => {
  const file = join(dir, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Manifest) : null;
};

/** Every package under `nodeModules`, scoped ones and those nested in other packages' node_modules. */
function installed(nodeModules: string, into: Installed[] = []): Installed[] {
  if (!existsSync(nodeModules)) return into;
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue;
    const dirs = entry.startsWith('@')
      ? readdirSync(join(nodeModules, entry)).map((s) => join(nodeModules, entry, s))
      : [join(nodeModules, entry)];
    for (const dir of dirs) {
      const manifest = readManifest(dir);
      if (!manifest) continue;
      into.push({ dir, manifest });
      installed(join(dir, 'node_modules'), into);
    }
  }
  return into;
}

/** The version Node's resolution finds for `name` from the package in `dir`, or null if none. */
function resolvedVersion(dir: string, name: string): string | null {
  let from = dir;
  for (;;) {
    const manifest = readManifest(join(from, 'node_modules', name));
    if (manifest) return manifest.version;
    const up = from.lastIndexOf('/node_modules/');
    if (up < 0) return readManifest(join('node_modules', name))?.version ?? null;
    from = from.slice(0, up);
  }
}

describe('npm install on the supported Node', () => {
  const root = readManifest('.') as Manifest & { engines: { node: string } };
  const packages = installed('node_modules');

  it('runs on a Node that package.json engines accepts', () => {
    expect(packages.length).toBeGreaterThan(100);
    expect(satisfies(process.version, root.engines.node)).toBe(true);
  });

  it('installs no package whose engines.node refuses this Node (EBADENGINE)', () => {
    const refusing = packages
      .filter(({ manifest }) => manifest.engines?.node && !satisfies(process.version, manifest.engines.node))
      .map(({ dir, manifest }) => `${dir}@${manifest.version} wants node ${manifest.engines?.node}`);
    expect({ node: process.version, refusing }).toEqual({ node: process.version, refusing: [] });
  });

  it('leaves no peer dependency out of range except the peers package.json overrides (ERESOLVE)', () => {
    const overriddenPeer = (pkg: string, peer: string) => {
      const override = root.overrides?.[pkg];
      return typeof override === 'object' && override[peer] === `$${peer}`;
    };
    const outOfRange: string[] = [];
    const overridden: string[] = [];
    for (const { dir, manifest } of packages) {
      for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
        const version = resolvedVersion(dir, peer);
        if (!version || satisfies(version, range)) continue;
        const line = `${manifest.name}@${manifest.version} wants ${peer}@${range}, has ${version}`;
        (overriddenPeer(manifest.name, peer) ? overridden : outOfRange).push(line);
      }
    }
    // And each such override still names a peer that would otherwise be out of range.
    const needless = Object.entries(root.overrides ?? {}).flatMap(([pkg, override]) =>
      typeof override === 'object'
        ? Object.keys(override)
            .filter((peer) => override[peer] === `$${peer}`)
            .filter(
              (peer) => !overridden.some((l) => l.startsWith(`${pkg}@`) && l.includes(` wants ${peer}@`)),
            )
            .map((peer) => `${pkg} > ${peer}`)
        : [],
    );
    expect({ outOfRange, needless }).toEqual({ outOfRange: [], needless: [] });
  });
});
