/**
 * Global setup of both tiers, so a stale dist/ is never tested silently. The slow tier's tests spawn the built
 * package (`bin/akashic.js`, `dist/…`): it fails when any TypeScript source is newer than its compiled file. The
 * fast tier runs the sources, except the worker threads (GC, trace recording), which load their compiled files from
 * dist/: it fails when a source those workers import is newer than its compiled file. `npm test` builds first; a
 * bare `npx vitest run` after an edit is told to run `npm run build`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** The modules the worker threads run from dist/ even when the tests run the sources. */
export const WORKER_ENTRIES = ['src/gc/gc-worker.ts', 'src/lab/bench/trace-worker.ts'] as const;

function isStale(root: string, src: string): boolean {
  let built: number;
  try {
    built = statSync(join(root, 'dist', relative(root, src).replace(/\.ts$/, '.js'))).mtimeMs;
  } catch {
    built = -1;
  }
  return built < statSync(src).mtimeMs;
}

/** Sources (under src/, tools/, test/) whose compiled .js in dist/ is missing or older. */
export function staleSources(root = ROOT): string[] {
  const stale: string[] = [];
  for (const top of ['src', 'tools', 'test']) {
    for (const src of sources(join(root, top))) if (isStale(root, src)) stale.push(relative(root, src));
  }
  return stale;
}

/** `entries` and every source they import (relative imports, static or dynamic), transitively. */
export function importClosure(root: string, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const todo = entries.map((e) => join(root, e));
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)) {
      const dep = resolve(dirname(file), `${m[1]}.ts`);
      if (!seen.has(dep)) todo.push(dep);
    }
  }
  return [...seen].map((f) => relative(root, f)).sort();
}

/** Sources the worker threads import whose compiled .js in dist/ is missing or older. */
export function staleWorkerSources(root = ROOT): string[] {
  return importClosure(root, WORKER_ENTRIES).filter((rel) => isStale(root, join(root, rel)));
}

function refuse(stale: readonly string[]): void {
  if (stale.length > 0) {
    throw new Error(`dist/ is older than ${stale.length} source file(s) (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', …' : ''}): run \`npm run build\` first`);
  }
}

/** The slow tier's setup: every source. */
export default function setup(): void {
  refuse(staleSources());
}

/** The fast tier's setup: the sources the workers run from dist/. */
export function setupWorkers(): void {
  refuse(staleWorkerSources());
}
