/**
 * Global setup of the slow tier, whose tests spawn the built package (`bin/akashic.js`, `dist/…`): fails the run
 * when any TypeScript source is newer than its compiled file, so a stale dist/ is never tested silently. `npm test`
 * builds first; a bare `npx vitest run` after an edit is told to run `npm run build`.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** Sources (under src/, tools/, test/) whose compiled .js in dist/ is missing or older. */
export function staleSources(root = ROOT): string[] {
  const stale: string[] = [];
  for (const top of ['src', 'tools', 'test']) {
    for (const src of sources(join(root, top))) {
      const rel = relative(root, src);
      let built: number;
      try {
        built = statSync(join(root, 'dist', rel.replace(/\.ts$/, '.js'))).mtimeMs;
      } catch {
        built = -1;
      }
      if (built < statSync(src).mtimeMs) stale.push(rel);
    }
  }
  return stale;
}

export default function setup(): void {
  const stale = staleSources();
  if (stale.length > 0) {
    throw new Error(`dist/ is older than ${stale.length} source file(s) (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', …' : ''}): run \`npm run build\` first`);
  }
}
