/**
 * Meaning without shared words: a dense relevance signal from word vectors, and how it is combined with BM25.
 *
 * The dense score of a document (a chunk's keywords, a passage's words) for a query is the mean, over the query's
 * words that have a vector, of the best cosine between that word and any word of the document (a best cosine
 * below {@link RELATED_COSINE} counts as 0). A shared word scores 1, a related one ("live" and "moved" ≈ 0.5) scores in between, so a question
 * matches the turn that answers it in other words. It is soft matching of words, not a sentence embedding: word
 * order and negation are invisible to it.
 * @internal
 */
import { dot, type WordVectors } from './word-vectors.js';

/**
 * A query word counts as matched only by a word at least this close (cosine). Related words sit around 0.45–0.75
 * (live/moved 0.50, pet/puppy 0.61, kids/children 0.76); two random words of the vocabulary exceed 0.45 about once
 * in 400, so a document is not promoted by the chance closeness of one of its many words.
 */
export const RELATED_COSINE = 0.45;

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

/**
 * Dense scores against one query, one document at a time. The same word recurs across the documents of one
 * scoring (the sentences of a recall, the keywords of its candidates), so each word vector's cosines with the query
 * words are computed once per scorer (looked up by the vector object: a `WordVectors` hands out one view per word)
 * and reused; the arithmetic per cosine is unchanged, so every score is the same as computing each afresh. Lives as
 * long as one scoring: nothing is kept across calls.
 */
export class DenseScorer {
  readonly #query: readonly Float32Array[];
  readonly #cosines = new Map<Float32Array, Float64Array>();
  /** The cosine row of each word `scoreWords` looked up (null: the word has no vector). */
  readonly #byWord = new Map<string, Float64Array | null>();
  /** `scoreWords`' rows of the document being scored, reused from one document to the next. */
  readonly #rows: Float64Array[] = [];

  constructor(query: readonly Float32Array[]) {
    this.#query = query;
  }

  /** The document's dense score (see the module comment); 0 when the query or the document has no vector. */
  score(doc: readonly Float32Array[]): number {
    if (this.#query.length === 0) return 0;
    return this.#scoreRows(doc.map((d) => this.#row(d)));
  }

  /**
   * `score(vectorsOf(vectors, words))`, without building the vector list: each word (lower-cased) is looked up once
   * per scorer, in a map of the words this scoring has met.
   */
  scoreWords(words: readonly string[], vectors: WordVectors): number {
    if (this.#query.length === 0) return 0;
    const rows = this.#rows;
    rows.length = 0;
    for (const w of words) {
      const word = w.toLowerCase();
      let row = this.#byWord.get(word);
      if (row === undefined) {
        const v = vectors.vector(word);
        row = v === undefined ? null : this.#row(v);
        this.#byWord.set(word, row);
      }
      if (row !== null) rows.push(row);
    }
    return this.#scoreRows(rows);
  }

  /** The score of a document given its words' cosine rows: the best cosine per query word, those related summed. */
  #scoreRows(rows: readonly Float64Array[]): number {
    const query = this.#query;
    if (rows.length === 0) return 0;
    let total = 0;
    for (let j = 0; j < query.length; j++) {
      let best = 0;
      for (const row of rows) {
        const c = row[j]!;
        if (c > best) best = c;
      }
      if (best >= RELATED_COSINE) total += best;
    }
    return total / query.length;
  }

  /** Cosines of `d` with each query word, in query order. */
  #row(d: Float32Array): Float64Array {
    let row = this.#cosines.get(d);
    if (row === undefined) {
      const query = this.#query;
      row = new Float64Array(query.length);
      for (let j = 0; j < query.length; j++) row[j] = dot(query[j]!, d);
      this.#cosines.set(d, row);
    }
    return row;
  }
}

/** Dense score of each document (a list of word vectors) against the query's word vectors; 0 when either is empty. */
export function denseScores(query: readonly Float32Array[], documents: readonly (readonly Float32Array[])[]): number[] {
  const scorer = new DenseScorer(query);
  return documents.map((doc) => scorer.score(doc));
}

/**
 * Lexical first, dense second: an item that matches a query word scores 1 + its lexical score (so it keeps its
 * lexical order and always ranks above the rest), an item that matches none scores its dense score (< 1). The dense
 * signal thus adds what shared words cannot find and never displaces a lexical match: fusing the two rankings by
 * reciprocal rank instead cost 6 points of evidence recall on LoCoMo (docs/recall-quality.md).
 */
export function lexicalThenDense(lexical: readonly number[], dense: readonly number[]): number[] {
  return lexical.map((l, i) => (l > 0 ? 1 + l : Math.min(dense[i] ?? 0, 0.999)));
}

/**
 * The items whose dense score can change what {@link lexicalThenDense} leads to, by index: only items without a
 * lexical match (a match's dense score is never read), and none at all when only the best `used` items are kept
 * and at least `used` items match lexically (every match outranks every non-match). Computing dense scores for
 * these alone gives the same result as computing them for all.
 */
export function denseNeeded(lexical: readonly number[], used: number = Number.POSITIVE_INFINITY): number[] {
  let matches = 0;
  for (const l of lexical) if (l > 0) matches++;
  if (matches >= used) return [];
  const out: number[] = [];
  lexical.forEach((l, i) => {
    if (!(l > 0)) out.push(i);
  });
  return out;
}

/**
 * {@link lexicalThenDense} with the dense scores computed only for {@link denseNeeded} items: `query()` gives the
 * query's vectors (called only when some item needs them), `scoreOf(scorer, i)` item i's dense score with that
 * query's scorer (`scorer.score` of its vectors, or `scorer.scoreWords` of its words). Same scores for every item
 * the caller can observe (a skipped item scores as with a dense score of 0: it is a lexical match, or it falls
 * outside the `used` best).
 */
export async function lexicalThenDenseLazily(
  lexical: readonly number[],
  used: number,
  query: () => readonly Float32Array[],
  scoreOf: (scorer: DenseScorer, index: number) => number,
  map: <T, U>(items: readonly T[], fn: (item: T) => U) => Promise<U[]>,
): Promise<number[]> {
  const needed = denseNeeded(lexical, used);
  const dense = new Array<number>(lexical.length).fill(0);
  if (needed.length > 0) {
    const words = query();
    // A query without a word that has a vector (names, identifiers, words outside the vocabulary) gives every
    // document a dense score of 0: the documents' words are then not looked up at all.
    if (words.length > 0) {
      const scorer = new DenseScorer(words);
      const scores = await map(needed, (i) => scoreOf(scorer, i));
      needed.forEach((i, k) => (dense[i] = scores[k]!));
    }
  }
  return lexicalThenDense(lexical, dense);
}
