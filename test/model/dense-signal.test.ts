import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DenseScorer, RELATED_COSINE, denseNeeded, denseScores, lexicalThenDense, lexicalThenDenseLazily, vectorsOf } from '../../src/model/dense-signal.js';
import { dot, type WordVectors } from '../../src/model/word-vectors.js';

/** The best `used` items by score (> 0), best first, ties by index: what SELECT keeps of a score list. */
function best(scores: readonly number[], used: number): number[] {
  return scores
    .map((s, i) => ({ s, i }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, used)
    .map((x) => x.i);
}

const unit = (xs: readonly number[]): Float32Array => {
  const n = Math.hypot(...xs) || 1;
  return Float32Array.from(xs.map((x) => x / n));
};
const vec = fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }).map(unit);
const map = async <T, U>(items: readonly T[], fn: (item: T) => U): Promise<U[]> => items.map(fn);

describe('dense signal computed only where it can matter', () => {
  it('keeps the same best items as scoring every item, and the same score for every item when all are used', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 20, noNaN: true })), fc.array(vec, { maxLength: 4 })), { maxLength: 14 }),
        fc.array(vec, { maxLength: 3 }),
        fc.integer({ min: 1, max: 16 }),
        async (items, query, used) => {
          const lexical = items.map(([l]) => l);
          const docs = items.map(([, d]) => d);
          const full = lexicalThenDense(lexical, denseScores(query, docs));
          let looked = 0;
          const lazy = await lexicalThenDenseLazily(lexical, used, () => query, (scorer, i) => (looked++, scorer.score(docs[i]!)), map);
          expect(best(lazy, used)).toEqual(best(full, used));
          const all = await lexicalThenDenseLazily(lexical, Number.POSITIVE_INFINITY, () => query, (scorer, i) => scorer.score(docs[i]!), map);
          expect(all).toEqual(full);
          // Lexical matches are never looked up.
          expect(looked).toBeLessThanOrEqual(lexical.filter((l) => !(l > 0)).length);
          // A query without vectors scores every document 0 without looking any up.
          if (query.length === 0) expect(looked).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('needs no dense score once enough items match lexically, and only the non-matching ones otherwise', () => {
    expect(denseNeeded([1, 0, 2, 0.5], 3)).toEqual([]);
    expect(denseNeeded([1, 0, 2, 0], 3)).toEqual([1, 3]);
    expect(denseNeeded([0, 0], Number.POSITIVE_INFINITY)).toEqual([0, 1]);
  });
});

describe('dense scores with cosines reused across documents', () => {
  /** The definition, every cosine computed afresh. */
  const fresh = (query: readonly Float32Array[], doc: readonly Float32Array[]): number => {
    if (query.length === 0 || doc.length === 0) return 0;
    let total = 0;
    for (const q of query) {
      let best = 0;
      for (const d of doc) best = Math.max(best, dot(q, d));
      if (best >= RELATED_COSINE) total += best;
    }
    return total / query.length;
  };

  it('gives every document the same score as computing each cosine afresh, words shared between documents', () => {
    fc.assert(
      fc.property(
        fc.array(vec, { minLength: 1, maxLength: 8 }),
        fc.array(fc.array(fc.nat(7), { maxLength: 5 }), { maxLength: 10 }),
        fc.array(vec, { maxLength: 4 }),
        (words, docIdx, query) => {
          // Documents share the very vector objects, as a WordVectors' views are shared between lookups.
          const docs = docIdx.map((ix) => [...new Set(ix.map((i) => i % words.length))].map((i) => words[i]!));
          const scorer = new DenseScorer(query);
          for (const d of docs) expect(scorer.score(d)).toBe(fresh(query, d));
          expect(denseScores(query, docs)).toEqual(docs.map((d) => fresh(query, d)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('scores a document by its words as by their vectors: case, repeats and words without a vector alike', () => {
    fc.assert(
      fc.property(
        fc.array(vec, { minLength: 1, maxLength: 6 }),
        fc.array(fc.array(fc.tuple(fc.nat(9), fc.boolean()), { maxLength: 8 }), { maxLength: 8 }),
        fc.array(vec, { maxLength: 4 }),
        (table, docIdx, query) => {
          // Words w0…w5 have vectors (one shared view each, as a table hands out); w6…w9 have none.
          const vectors: WordVectors = {
            dimensions: 3,
            size: table.length,
            vector: (word) => table[Number(/^w(\d)$/.exec(word)?.[1] ?? -1)],
            rank: () => undefined,
          };
          const scorer = new DenseScorer(query);
          for (const ix of docIdx) {
            const words = ix.map(([i, upper]) => (upper ? `W${i}` : `w${i}`));
            expect(scorer.scoreWords(words, vectors)).toBe(fresh(query, vectorsOf(vectors, words)));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

