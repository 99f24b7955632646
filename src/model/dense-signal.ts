/**
 * Meaning without shared words: a dense relevance signal from word vectors, and reciprocal rank fusion to combine
 * it with BM25.
 *
 * The dense score of a document (a chunk's keywords, a passage's words) for a query is the mean, over the query's
 * words that have a vector, of the best cosine between that word and any word of the document (negative cosines
 * count as 0). A shared word scores 1, a related one ("live" and "moved" ≈ 0.5) scores in between, so a question
 * matches the turn that answers it in other words. It is soft matching of words, not a sentence embedding: word
 * order and negation are invisible to it.
 * @internal
 */
import { dot, type WordVectors } from './word-vectors.js';

/** The constant k of reciprocal rank fusion (1 / (k + rank)); 60 is the value of the method's original study. */
export const RRF_K = 60;

/** Vectors of the words that have one, duplicates removed. */
export function vectorsOf(vectors: WordVectors, words: readonly string[]): Float32Array[] {
  const out: Float32Array[] = [];
  const seen = new Set<string>();
  for (const w of words) {
    const word = w.toLowerCase();
    if (seen.has(word)) continue;
    seen.add(word);
    const v = vectors.vector(word);
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** Dense score of each document (a list of word vectors) against the query's word vectors; 0 when either is empty. */
export function denseScores(query: readonly Float32Array[], documents: readonly (readonly Float32Array[])[]): number[] {
  return documents.map((doc) => {
    if (query.length === 0 || doc.length === 0) return 0;
    let total = 0;
    for (const q of query) {
      let best = 0;
      for (const d of doc) {
        const c = dot(q, d);
        if (c > best) best = c;
      }
      total += best;
    }
    return total / query.length;
  });
}

/**
 * Reciprocal rank fusion of several score lists over the same items: each list ranks the items with a score > 0
 * (best first, ties to the lower index) and an item gets Σ 1 / (k + rank), rank from 1. Items no list ranks get 0.
 */
export function reciprocalRankFusion(lists: readonly (readonly number[])[], k: number = RRF_K): number[] {
  const n = lists[0]?.length ?? 0;
  const fused = new Array<number>(n).fill(0);
  for (const scores of lists) {
    const ranked = scores
      .map((score, i) => ({ score, i }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i);
    ranked.forEach((r, rank) => {
      fused[r.i] = (fused[r.i] ?? 0) + 1 / (k + rank + 1);
    });
  }
  return fused;
}
