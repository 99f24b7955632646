/**
 * Okapi BM25 over pre-tokenized documents, delegated to `wink-bm25-text-search`.
 *
 * Why wink and not `okapibm25`: okapibm25 counts a term with `new RegExp(term)` and computes IDF with
 * `String.includes`, so it matches substrings (`car` inside `cards`), throws on terms such as `c++`, and scores a
 * term differently in TF and IDF. wink keeps a real inverted index over exact tokens and lets us supply the
 * tokenizer, so the same normalized terms are used on both sides.
 *
 * wink refuses to consolidate fewer than 3 documents. Small candidate sets are padded with placeholder documents
 * made of a token our tokenizer can never produce; they match no query and are dropped from the result. Padding
 * changes N and the average document length, so absolute scores differ from unpadded BM25, but IDF still falls with
 * document frequency and length normalization still favours shorter matches, so the ranking keeps BM25's shape.
 * Only the order (and score > 0) is used by callers.
 *
 * @internal
 */
import winkBm25 from 'wink-bm25-text-search';

const MIN_DOCS = 3;
/** NUL cannot occur in a term from `termsOf`, so placeholder documents never match. */
const PLACEHOLDER_TERM = '\u0000';
/** wink rounds per-term weights to this many decimals; 9 is its maximum and keeps ties rare. */
const PRECISION = 9;

const splitTerms = (input: string): string[] => input.split(' ').filter((term) => term.length > 0);

/**
 * BM25 score of every document against the query terms, by document index; 0 for documents that match nothing.
 * Terms must already be normalized and must not contain spaces.
 */
export function bm25Scores(documents: readonly (readonly string[])[], queryTerms: readonly string[]): number[] {
  const scores = documents.map(() => 0);
  if (documents.length === 0 || queryTerms.length === 0) return scores;

  const engine = winkBm25();
  engine.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
  engine.definePrepTasks([splitTerms]);
  documents.forEach((terms, i) => engine.addDoc({ body: terms.join(' ') }, i));
  for (let pad = documents.length; pad < MIN_DOCS; pad += 1) {
    engine.addDoc({ body: PLACEHOLDER_TERM }, pad);
  }
  engine.consolidate(PRECISION);

  for (const [id, score] of engine.search(queryTerms.join(' '), Math.max(documents.length, MIN_DOCS))) {
    const i = Number(id);
    if (i < documents.length) scores[i] = score;
  }
  return scores;
}
