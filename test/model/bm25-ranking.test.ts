import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import winkBm25 from 'wink-bm25-text-search';
import { bm25Scores } from '../../src/model/bm25-ranking.js';
import { termsOf } from '../../src/model/keywords.js';

/** The scores as wink-bm25-text-search computes them (the implementation bm25Scores replaced, kept as the reference). */
function winkScores(documents: readonly (readonly string[])[], queryTerms: readonly string[]): number[] {
  const scores = documents.map(() => 0);
  if (documents.length === 0 || queryTerms.length === 0) return scores;
  const engine = winkBm25();
  engine.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
  engine.definePrepTasks([(s: string) => s.split(' ').filter((t) => t.length > 0)]);
  documents.forEach((terms, i) => engine.addDoc({ body: terms.join(' ') }, i));
  for (let pad = documents.length; pad < 3; pad += 1) engine.addDoc({ body: '\u0000' }, pad);
  engine.consolidate(9);
  for (const [id, score] of engine.search(queryTerms.join(' '), Math.max(documents.length, 3))) {
    const i = Number(id);
    if (i < documents.length) scores[i] = score;
  }
  return scores;
}

const vocabulary = ['cat', 'dog', 'berlin', 'move', 'vet', 'jazz', 'tea', 'rent', 'python', 'garden', 'x'];
const term = fc.constantFrom(...vocabulary);

describe('bm25Scores', () => {
  it('gives exactly the scores wink-bm25-text-search gives (any documents, repeated and unknown terms, fewer than 3 documents)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(term, { maxLength: 12 }), { maxLength: 12 }), fc.array(fc.oneof(term, fc.constant('unknown')), { maxLength: 6 }), (docs, query) => {
        expect(bm25Scores(docs, query)).toEqual(winkScores(docs, query));
        // Terms without spaces or empty ones: vouching for them changes no score.
        expect(bm25Scores(docs, query, true)).toEqual(winkScores(docs, query));
      }),
      { numRuns: 400 },
    );
  });

  it('gives exactly wink\'s scores on text-derived terms (terms with spaces split as wink splits them)', () => {
    const texts = [
      'Alice moved to Berlin last spring and rents a flat near the river',
      'The vet said the cat needs a vaccination before the move',
      'We listened to jazz records and drank tea in the garden',
      'Bob refactored the Python tests; pytest runs in seconds now',
      '',
    ];
    const docs = [...texts.map((t) => termsOf(t)), ['two words', 'cat'], ['  ', 'jazz']];
    for (const q of ['Where does Alice live now?', 'cat vet move', 'jazz tea garden python', 'two words', 'nothing matches here']) {
      const query = [...new Set(termsOf(q))];
      expect(bm25Scores(docs, query)).toEqual(winkScores(docs, query));
      expect(bm25Scores(docs, [...query, ...query])).toEqual(winkScores(docs, [...query, ...query]));
      expect(bm25Scores(docs.slice(0, 2), query)).toEqual(winkScores(docs.slice(0, 2), query));
    }
  });
  it('scores lists ending with the same documents (an indexed run) exactly as lists scored afresh', () => {
    // A window of documents every list ends with, and heads that change from call to call.
    const doc = fc.array(term, { maxLength: 12 });
    fc.assert(
      fc.property(fc.array(doc, { minLength: 64, maxLength: 90 }), fc.array(fc.array(doc, { maxLength: 10 }), { minLength: 3, maxLength: 6 }), fc.array(term, { minLength: 1, maxLength: 4 }), (window, heads, query) => {
        for (const head of heads) {
          const docs = [...head, ...window];
          // Fresh copies of every list: nothing indexed or remembered can serve them.
          const fresh = docs.map((d) => [...d]);
          expect(bm25Scores(docs, query, true)).toEqual(bm25Scores(fresh, query, true));
          expect(bm25Scores(docs, query, true)).toEqual(winkScores(fresh, query));
        }
        // A list ending with only part of the window, and one whose window changed in the middle.
        const part = window.slice(10);
        expect(bm25Scores(part, query, true)).toEqual(winkScores(part, query));
        const changed = [...window.slice(0, 5), ['jazz', 'tea'], ...window.slice(6)];
        expect(bm25Scores(changed, query, true)).toEqual(winkScores(changed, query));
        expect(bm25Scores(changed, query, true)).toEqual(winkScores(changed, query));
      }),
      { numRuns: 60, seed: 29 },
    );
  });

  it('scores term lists the same the first time (frequencies not kept yet), the second (kept then) and after', () => {
    // A list's term frequencies are kept from its second scoring on; lists met for the first time are read term by
    // term. Calls mixing lists of each kind (repeated terms included) give wink's scores for any query.
    const doc = fc.array(term, { maxLength: 12 });
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 20 }), fc.array(fc.array(term, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), fc.nat(), (docs, queries, seed) => {
        const lists = docs.map((d) => [...d]);
        for (const query of queries) {
          // Some lists fresh at every call, the others kept: each call meets lists seen 0, 1, 2, … times before.
          const mixed = lists.map((l, i) => ((i + seed) % 3 === 0 ? [...l] : l));
          expect(bm25Scores(mixed, query, true)).toEqual(winkScores(mixed, query));
        }
      }),
      { numRuns: 300 },
    );
  });
});
