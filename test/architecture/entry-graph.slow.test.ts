/**
 * What `import('akashic')` loads: the module graph of the built entry point, walked through every relative import
 * of the compiled files. No benchmark, evaluation, replay or workload module is in it; they load only through
 * `akashic/lab`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, compiledClosure } from './module-graph.js';

const LAB = /^dist\/src\/(lab|bench|eval|harness|workload)\//;

describe('the built entry points', () => {
  it("akashic's module graph holds the product and no lab module", () => {
    const graph = compiledClosure(ROOT, 'dist/src/index.js');
    expect(graph).toContain('dist/src/engine/akashic-store.js');
    expect(graph).toContain('dist/src/memattention/memory.js');
    expect(graph).toContain('dist/src/api/index.js');
    expect(graph.filter((m) => LAB.test(m))).toEqual([]);
  });

  it('akashic/lab reaches the benchmarks, evaluation, replay and workloads', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> };
    const entry = pkg.exports['./lab']!.default.replace(/^\.\//, '');
    const graph = compiledClosure(ROOT, entry);
    for (const dir of ['bench', 'eval', 'harness', 'workload']) expect(graph.some((m) => m.startsWith(`dist/src/lab/${dir}/`)), dir).toBe(true);
  });

  it('every adapter entry point stays clear of the lab too', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default?: string } | string> };
    const adapters = Object.entries(pkg.exports).filter(([k]) => ['./langgraph', './ai-sdk', './langchain'].includes(k));
    expect(adapters).toHaveLength(3);
    for (const [, v] of adapters) {
      const graph = compiledClosure(ROOT, (v as { default: string }).default.replace(/^\.\//, ''));
      expect(graph.filter((m) => LAB.test(m))).toEqual([]);
    }
  });
});
