import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bm25Scores, type Bm25Document } from '../../src/model/bm25-ranking.js';
import { withExtraTerms, type EncodedTerms } from '../../src/model/encoded-terms.js';
import { decodeDirEntryLazily, encodeDirEntry, storedTermsOf } from '../../src/record/dir-entry.js';
import { ownBytes } from '../../src/util/own-bytes.js';

/** A document's terms as a directory entry stores them, still encoded (its keywords are a part of its terms). */
function encoded(terms: readonly string[]): EncodedTerms {
  const keywords = terms.filter((_, i) => i % 2 === 0);
  const value = encodeDirEntry({
    state: 'live', version: 1, location: { blockId: 1, frame: 0, slot: 0 }, recordBytes: 1, tokenCount: 1, createdAt: 1, updatedAt: 1,
    kind: 'memory', keywords, supersededBy: null, deletedAt: null, keywordTerms: { version: 1, terms },
  });
  return storedTermsOf(decodeDirEntryLazily(ownBytes(Buffer.from(value)), 't'))!.terms;
}

// Plain terms (never empty, never spaced), some non-ASCII, some that UTF-8 cannot compare byte for byte.
const term = fc.oneof(
  fc.constantFrom('cat', 'dog', 'berlin', 'caf\u00e9', '\u{1f600}', 'x', '\ufeffbom', '\ufffd', '\ud800x', '2023-07'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }).filter((s) => !s.includes(' ')),
);

describe('bm25Scores over encoded documents', () => {
  it('gives exactly the scores of the same documents as strings, first seen and seen again, with extra terms appended', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(term, { maxLength: 20 }), { maxLength: 90 }),
        fc.array(term, { maxLength: 6 }),
        fc.array(term, { maxLength: 3 }),
        fc.boolean(),
        (docs, query, extra, withExtra) => {
          // The reference: the same stored terms decoded into strings (a lone surrogate is stored as U+FFFD).
          const plain = docs.map((d) => encoded(d).strings()).map((d) => (withExtra ? [...d, ...extra] : d));
          const stored = docs.map(encoded);
          const lazy: Bm25Document[] = withExtra ? stored.map((s) => withExtraTerms(s, extra)) : stored;
          const expected = bm25Scores(plain, query);
          // Three calls over the same document objects: first sight (bytes), kept frequencies, then an indexed run.
          for (let round = 0; round < 3; round++) expect(bm25Scores(lazy, query, true)).toEqual(expected);
          // A list ending with the same documents after others (the window of a later recall).
          const more = [encoded(['dog', 'cat']), ...lazy];
          expect(bm25Scores(more, query, true)).toEqual(bm25Scores([['dog', 'cat'], ...plain], query));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reads an encoded document as its strings without plainTerms', () => {
    const docs = [['cat', 'dog'], ['berlin'], ['cat', 'cat', 'tea']];
    expect(bm25Scores(docs.map(encoded), ['cat', 'tea'])).toEqual(bm25Scores(docs, ['cat', 'tea']));
    expect(bm25Scores(docs.map(encoded), ['cat', 'tea']).filter((s) => s > 0)).toHaveLength(2);
  });
});
