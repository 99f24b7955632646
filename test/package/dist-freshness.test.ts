/** The tiers' guard against testing a stale dist/ (`test/support/dist-freshness.ts`), on a scratch tree. */
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importClosure, staleSources, staleWorkerSources } from '../support/dist-freshness.js';

let root = '';
afterEach(async () => {
  if (root !== '') await rm(root, { recursive: true, force: true });
  root = '';
});

async function file(rel: string, text: string, mtimeSec: number): Promise<void> {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), text);
  await utimes(join(root, rel), mtimeSec, mtimeSec);
}

/** A tree whose GC worker imports a codec (statically) and a helper (dynamically); `other.ts` no worker imports. */
async function tree(): Promise<void> {
  root = await mkdtemp(join(tmpdir(), 'akashic-freshness-'));
  await file('src/gc/gc-worker.ts', "import { a } from '../block/codec.js';\nexport default a;\n", 100);
  await file('src/block/codec.ts', "export const a = 1;\nexport const b = () => import('../util/help.js');\n", 100);
  await file('src/util/help.ts', 'export const h = 1;\n', 100);
  await file('src/lab/bench/trace-worker.ts', 'export default 1;\n', 100);
  await file('src/other.ts', 'export const o = 1;\n', 100);
  await mkdir(join(root, 'tools'));
  await mkdir(join(root, 'test'));
  for (const rel of ['gc/gc-worker', 'block/codec', 'util/help', 'lab/bench/trace-worker', 'other']) await file(`dist/src/${rel}.js`, '', 200);
}

describe('dist freshness', () => {
  it("follows the workers' imports, static and dynamic", async () => {
    await tree();
    expect(importClosure(root, ['src/gc/gc-worker.ts'])).toEqual(['src/block/codec.ts', 'src/gc/gc-worker.ts', 'src/util/help.ts']);
  });

  it('a fresh build passes both checks', async () => {
    await tree();
    expect(staleSources(root)).toEqual([]);
    expect(staleWorkerSources(root)).toEqual([]);
  });

  it('an edit the workers run from dist/ fails the fast tier; an edit they do not only the slow tier', async () => {
    await tree();
    await utimes(join(root, 'src/util/help.ts'), 300, 300);
    await utimes(join(root, 'src/other.ts'), 300, 300);
    expect(staleWorkerSources(root)).toEqual(['src/util/help.ts']);
    expect(staleSources(root).sort()).toEqual(['src/other.ts', 'src/util/help.ts']);
  });
});
