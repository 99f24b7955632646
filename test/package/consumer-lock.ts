/**
 * A package-lock.json for a fresh project that depends on the packed tarball: every other package is pinned to the
 * exact version (and integrity) this repository's own lock resolved, so `npm ci --offline` installs it from the npm
 * cache that `npm ci` filled, without fetching anything (not even package metadata).
 */
interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [k: string]: unknown;
}

export interface Lock {
  name?: string;
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

/** 'node_modules/a/node_modules/b' → 'node_modules/a'; 'node_modules/a' → ''. */
function parentOf(path: string): string {
  const i = path.lastIndexOf('/node_modules/');
  return i < 0 ? '' : path.slice(0, i);
}

/** Where Node would find `name` required from the package at `from` (a lock path; '' is the root). */
function resolveIn(lock: Lock, from: string, name: string): string | null {
  for (let p = from; ; p = parentOf(p)) {
    const candidate = `${p === '' ? '' : p + '/'}node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (p === '') return null;
  }
}

/** The lock entries needed by `roots` (resolved from `from`), following dependencies and required peers. */
export function closure(lock: Lock, roots: readonly string[], from = ''): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {};
  const queue: [string, string, boolean][] = roots.map((r) => [from, r, false]);
  while (queue.length > 0) {
    const [at, name, optional] = queue.pop()!;
    const found = resolveIn(lock, at, name);
    if (found === null) {
      if (optional) continue;
      throw new Error(`${name} (needed by ${at || 'the root'}) is not in the lock`);
    }
    if (out[found] !== undefined) continue;
    const { dev: _d, devOptional: _o, peer: _p, ...entry } = lock.packages[found]!;
    out[found] = entry;
    for (const d of Object.keys(entry.dependencies ?? {})) queue.push([found, d, false]);
    for (const d of Object.keys(entry.optionalDependencies ?? {})) queue.push([found, d, true]);
    for (const d of Object.keys(entry.peerDependencies ?? {})) {
      if (entry.peerDependenciesMeta?.[d]?.optional !== true) queue.push([found, d, false]);
    }
  }
  return out;
}

/**
 * The consumer's lock: `akashic` from the tarball (its manifest as packed) plus `extra` packages (peers the
 * consumer chose), everything pinned as in `repoLock`.
 */
export function consumerLock(
  repoLock: Lock,
  packed: { readonly file: string; readonly integrity: string; readonly manifest: LockEntry & { name: string } },
  extra: Record<string, string>,
): { packageJson: object; lock: Lock } {
  const { name: _n, ...manifest } = packed.manifest;
  const akashic: LockEntry = {
    version: manifest.version!,
    resolved: `file:${packed.file}`,
    integrity: packed.integrity,
    ...(['license', 'dependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'engines'] as const).reduce<Record<string, unknown>>((o, k) => {
      if (manifest[k] !== undefined) o[k] = manifest[k];
      return o;
    }, {}),
  };
  const deps = { akashic: `file:${packed.file}`, ...extra };
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', dependencies: deps },
    'node_modules/akashic': akashic,
    ...closure(repoLock, Object.keys(manifest.dependencies ?? {}), 'node_modules/akashic'),
    ...closure(repoLock, Object.keys(extra)),
  };
  return { packageJson: { name: 'consumer', private: true, type: 'module', dependencies: deps }, lock: { name: 'consumer', lockfileVersion: 3, packages } };
}
