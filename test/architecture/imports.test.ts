/**
 * The layering docs/architecture.md draws, enforced on the sources: the store's modules are imported only by the
 * engine, GC and the store itself; everything else goes through the contract, `src/api/`, which sits at the bottom
 * and imports nothing but the error class and record types. The lab (`src/lab/`) is imported by nothing of the
 * product but the CLI.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, relativeSpecifiers, resolveSource, sourceFiles } from './module-graph.js';

const SRC = join(ROOT, 'src');

/** Every relative import of a source under src/, as [importer, imported], both relative to src/. */
const edges: [string, string][] = [];
for (const file of sourceFiles(SRC)) {
  for (const spec of relativeSpecifiers(readFileSync(file, 'utf8'))) {
    edges.push([relative(SRC, file), relative(SRC, resolveSource(file, spec))].map((p) => p.split('\\').join('/')) as [string, string]);
  }
}
const inside = (path: string, ...dirs: string[]): boolean => dirs.some((d) => path.startsWith(d + '/'));

describe('import layering of src/', () => {
  it('reads a real graph (the walk finds the known edges)', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual(['engine/akashic-store.ts', 'store/store-core.ts']);
    expect(edges).toContainEqual(['index.ts', 'api/index.ts']);
  });

  it('only store/, engine/ and gc/ import from store/', () => {
    const offending = edges.filter(([from, to]) => inside(to, 'store') && !inside(from, 'store', 'engine', 'gc'));
    expect(offending).toEqual([]);
  });

  it('api/ imports only itself, the error class and record types', () => {
    const offending = edges.filter(([from, to]) => inside(from, 'api') && !inside(to, 'api', 'record') && to !== 'errors.ts');
    expect(offending).toEqual([]);
  });

  it('nothing of the product imports the lab except the CLI', () => {
    const offending = edges.filter(([from, to]) => inside(to, 'lab') && !inside(from, 'lab', 'cli'));
    expect(offending).toEqual([]);
  });
});
