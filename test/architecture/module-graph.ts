/**
 * The relative imports of the package's own modules, read from their text: static `import`/`export … from`, bare
 * `import '…'` and `import('…')` with a literal specifier. What the layering tests walk; type-only imports count as
 * edges when reading TypeScript sources (stricter than the emitted JavaScript, which drops them).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

/** Relative specifiers a module's text imports or re-exports from. */
export function relativeSpecifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => m[2]!);
}

/** Every `.ts` source under `dir` (declaration files excluded), as absolute paths. */
export function* sourceFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** The absolute source path a relative `.js` specifier of `from` names (`./x.js` → `./x.ts`). */
export function resolveSource(from: string, spec: string): string {
  return resolve(dirname(from), spec.replace(/\.js$/, '.ts'));
}

/** `entry` and every module it reaches through relative imports (compiled `.js` files), as paths under `root`. */
export function compiledClosure(root: string, entry: string): string[] {
  const seen = new Set<string>();
  const todo = [join(root, entry)];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of relativeSpecifiers(readFileSync(file, 'utf8'))) {
      const dep = resolve(dirname(file), spec);
      if (!seen.has(dep)) todo.push(dep);
    }
  }
  return [...seen].map((f) => relative(root, f).split('\\').join('/')).sort();
}
