/**
 * Unknown option keys are refused, not ignored: `recall({ scop: 'user' })` would otherwise recall the session
 * scope and never say why. Each public entry point names its keys once, with a compile-time check that the list
 * covers every property of its TypeScript type (a property added to the type but not to the list fails the
 * build), and calls `rejectUnknownKeys` before it reads anything.
 */
import { invalidArgument } from '../errors.js';

/** The keys a list leaves out of `T`: `never` when the list is complete. */
type Missing<T, K extends readonly PropertyKey[]> = Exclude<keyof T, K[number]>;

/**
 * The option keys of type `T`, checked complete at compile time:
 * `const RECALL_KEYS = keysOf<RecallInput>()('user', 'session', 'query', ...)`.
 */
export function keysOf<T extends object>() {
  return <const K extends readonly (keyof T & string)[]>(
    ...keys: K & ([Missing<T, K>] extends [never] ? unknown : { readonly missingKeys: Missing<T, K> })
  ): ReadonlySet<string> => new Set<string>(keys);
}

/**
 * Throws AKASHIC_INVALID_ARGUMENT naming the first own enumerable key of `o` not in `allowed` (`what` names the
 * argument as the caller wrote it, e.g. `recall options`), with the closest known key when one is a likely typo.
 * A key whose value is undefined counts too: it is still a misspelling.
 */
export function rejectUnknownKeys(o: object, allowed: ReadonlySet<string>, what: string): void {
  for (const key of Object.keys(o)) {
    if (allowed.has(key)) continue;
    const near = closest(key, allowed);
    throw invalidArgument(`${what}: unknown option ${JSON.stringify(key)}${near === null ? '' : ` (did you mean ${JSON.stringify(near)}?)`}`);
  }
}

/** The allowed key within edit distance 2 of `key` (the nearest; none when two tie or none is near). */
function closest(key: string, allowed: ReadonlySet<string>): string | null {
  if (key.length > 64) return null;
  let best: string | null = null;
  let bestDistance = 3;
  let tie = false;
  for (const k of allowed) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase(), 3);
    if (d >= 3) continue;
    if (d < bestDistance) [best, bestDistance, tie] = [k, d, false];
    else if (d === bestDistance) tie = true;
  }
  return tie ? null : best;
}

/** Levenshtein distance, or `bound` as soon as it is certain to be at least `bound`. */
function editDistance(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) >= bound) return bound;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin >= bound) return bound;
    prev = row;
  }
  return Math.min(prev[b.length]!, bound);
}
