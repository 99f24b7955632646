/**
 * The embedded model's association (COLOCATE, GROUP): the engine's one association rule (gc/association.ts) over
 * stemmed keyword terms, so `memory` and `memories` agree.
 * @internal
 */
import { associationComponents as components } from '../gc/association.js';
import { orderedPair } from '../api/key-strings.js';
import { termsOf } from './keywords.js';
import type { ChunkMetaView, CoAccessView } from './memory-model.js';

/**
 * The key `CoAccessView.pairs` uses for an unordered pair: the two ids in string order, NUL-separated. Public (via
 * the barrel) so that whoever builds a `CoAccessView` produces exactly the keys the models look up.
 *
 * @example
 * ```ts
 * pairKey('b', 'a'); // 'a\u0000b'
 * ```
 */
export function pairKey(a: string, b: string): string {
  return orderedPair(a, b);
}

/** Matching-term set of a chunk's keywords (stemmed, so `memory`/`memories` agree). */
export function keywordTerms(keywords: readonly string[]): Set<string> {
  return new Set(termsOf(keywords.join('\n')));
}

/** Connected components of association ≥ `threshold` over stemmed terms (see gc/association.ts). */
export function associationComponents(chunks: readonly ChunkMetaView[], coAccess: CoAccessView, threshold: number): ChunkMetaView[][] {
  return components(chunks, coAccess, threshold, keywordTerms);
}
