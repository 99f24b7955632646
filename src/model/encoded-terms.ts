import type { ChunkMetaView } from './memory-model.js';
import type { Utf8Matcher } from '../util/utf8-matcher.js';

/**
 * A candidate's matching terms still in their stored encoding: their count, their decoded strings on demand, and
 * how often each of a few sought terms occurs among them, counted on the bytes. What BM25 needs of a document it
 * has not seen before is only that count and those frequencies, so a cold recall's SELECT makes no string of the
 * hundreds of candidates' terms.
 * @internal
 */
export interface EncodedTerms {
  readonly count: number;
  /** The terms as strings (the same array at every call). */
  strings(): readonly string[];
  /**
   * Adds to `counts[i]` the frequency of the matcher's i-th term; false when the bytes cannot tell (the caller then
   * discards `counts` and reads `strings()`).
   */
  countInto(matcher: Utf8Matcher, counts: Int32Array): boolean;
  /**
   * BM25's memo of these terms' frequencies, kept on the object itself (no weak-map entry per document): undefined
   * before it is first scored, null once scored without them kept, then the frequencies.
   */
  bm25Frequencies: ReadonlyMap<string, number> | null | undefined;
}

const ENCODED_TERMS = Symbol('encodedTerms');

/**
 * Attaches `terms`, which must be exactly `meta.keywordTerms` still encoded, to a candidate's view: a property
 * that is neither enumerable nor copied by a spread, so a view rebuilt by anyone else never carries it.
 */
export function withEncodedTerms(meta: ChunkMetaView, terms: EncodedTerms): void {
  Object.defineProperty(meta, ENCODED_TERMS, { value: terms });
}

/** The encoded terms attached to a candidate's view, if any. */
export function encodedTermsOf(meta: ChunkMetaView): EncodedTerms | undefined {
  return (meta as { readonly [ENCODED_TERMS]?: EncodedTerms })[ENCODED_TERMS];
}

/**
 * `terms` followed by `extra` (a few terms made at the call, such as a candidate's date terms), as one encoded
 * document: the same count, strings and frequencies as the joined list.
 */
export function withExtraTerms(terms: EncodedTerms, extra: readonly string[]): EncodedTerms {
  let strings: readonly string[] | undefined;
  return {
    bm25Frequencies: undefined,
    count: terms.count + extra.length,
    strings: () => (strings ??= [...terms.strings(), ...extra]),
    countInto(matcher, counts) {
      if (!terms.countInto(matcher, counts)) return false;
      for (const t of extra) {
        const k = matcher.indexOfString(t);
        if (k >= 0) counts[k] = counts[k]! + 1;
      }
      return true;
    },
  };
}
