/**
 * Okapi BM25 over pre-tokenized documents, with the arithmetic of `wink-bm25-text-search` (k1 1.2, b 0.75, IDF
 * `ln((N − n + 0.5) / (n + 0.5) + 1)`, per-term weights rounded to 9 decimals), computed directly.
 *
 * Why not wink itself: it builds a full inverted index (every term of every document, a rounded weight per
 * document and term) for one query and throws it away; SELECT does that on every recall over hundreds of
 * candidates, and it was about half of a recall's CPU time. Only the query's terms need weights, so this computes
 * document lengths, the query terms' document frequencies and their weights in the documents that hold them — the
 * same operations in the same order, so every score is bit-for-bit wink's (a test checks it against wink).
 *
 * Why wink's scheme and not another BM25: the rankings SELECT and the evaluation baseline produce are wink's, and a
 * speed change must not move them. wink refuses to consolidate fewer than 3 documents, so small candidate sets were
 * padded with placeholder documents of a token our tokenizer never produces (one token each); they still count in
 * N and the average length here. Padding changes absolute scores, not BM25's shape; callers use only the order and
 * score > 0.
 *
 * @internal
 */

import type { EncodedTerms } from './encoded-terms.js';
import { Utf8Matcher } from '../util/utf8-matcher.js';

/**
 * A document: its terms, or (plain terms only) its terms still encoded, read through their count and the byte-wise
 * frequencies of the query's terms the first time the document is seen, and decoded only if it is seen again.
 */
export type Bm25Document = readonly string[] | EncodedTerms;

/** The document's terms as strings. */
function stringsOf(doc: Bm25Document): readonly string[] {
  return isEncoded(doc) ? doc.strings() : doc;
}

function isEncoded(doc: Bm25Document): doc is EncodedTerms {
  return !Array.isArray(doc);
}

const MIN_DOCS = 3;
/** The placeholder documents' one token (NUL cannot occur in a term from `termsOf`). */
const PLACEHOLDER_TERM = '\u0000';
const K1 = 1.2;
const B = 0.75;
/** Added inside the IDF's logarithm (wink's `k`), which keeps IDF positive. */
const IDF_K = 1;
/** Per-term weights are rounded to this many decimals, as wink's consolidation (at its maximum, 9) rounds them. */
const PRECISION = 9;

/** Terms as wink's space tokenizer sees them: joined by spaces and split again, empty pieces dropped. */
function spaceTokensOf(terms: readonly string[]): readonly string[] {
  for (const t of terms) {
    if (t.length === 0 || t.includes(' ')) return terms.join(' ').split(' ').filter((x) => x.length > 0);
  }
  return terms;
}

/** Term frequencies of term lists, kept while the list lives (lists are read-only once scored). */
const FREQUENCIES = new WeakMap<readonly string[], Map<string, number>>();

/**
 * Term lists scored once, whose frequencies were not kept. Building a list's frequencies costs several times more
 * than reading its terms against the query once, and most lists a cold recall meets (new lists decoded from the
 * store, or a dated query's lists made afresh at every call) are never scored again: their frequencies are kept
 * from the second time a list is scored.
 */
const SCORED_ONCE = new WeakSet<readonly string[]>();

/** The list's kept term frequencies, made now if it was scored before; null the first time (nothing kept). */
function keptFrequenciesOf(terms: Bm25Document): ReadonlyMap<string, number> | null {
  if (isEncoded(terms)) {
    const kept = terms.bm25Frequencies;
    if (kept === undefined) terms.bm25Frequencies = null;
    else if (kept === null) return (terms.bm25Frequencies = countsOf(terms.strings()));
    return kept ?? null;
  }
  const tf = FREQUENCIES.get(terms);
  if (tf !== undefined) return tf;
  if (SCORED_ONCE.has(terms)) return frequenciesOf(terms);
  SCORED_ONCE.add(terms);
  return null;
}

function frequenciesOf(terms: readonly string[]): ReadonlyMap<string, number> {
  let tf = FREQUENCIES.get(terms);
  if (tf === undefined) {
    tf = countsOf(terms);
    FREQUENCIES.set(terms, tf);
  }
  return tf;
}

function countsOf(terms: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

/**
 * A run of documents that ends several calls' document lists (SELECT's candidates end with the scope's newest
 * chunks, the same term lists at every recall until a write), indexed once: each term's [index in the run,
 * frequency] postings, and the run's lengths. A call whose list ends with the same run (the same list objects)
 * finds a query term's postings in the run with one lookup instead of one per document; the postings, lengths and
 * sums are the same, so are the scores.
 */
interface IndexedRun {
  readonly docs: readonly Bm25Document[];
  readonly lengths: Int32Array;
  readonly totalLength: number;
  readonly postings: ReadonlyMap<string, readonly (readonly [number, number])[]>;
}

/** Shortest run worth indexing. */
const MIN_RUN = 64;
/** Runs kept (by their last document), least recently used dropped first: a few users' windows. */
const MAX_RUNS = 4;
const RUNS = new Map<Bm25Document, IndexedRun>();
/**
 * The last document list (plain terms) that ended with each document, a few kept: a run is indexed once a second
 * list ends with the same documents (callers scoring other lists in between do not interfere).
 */
const PREVIOUS = new Map<Bm25Document, readonly Bm25Document[]>();

function indexRun(docs: readonly Bm25Document[]): IndexedRun {
  const lengths = new Int32Array(docs.length);
  const postings = new Map<string, [number, number][]>();
  let totalLength = 0;
  // Read from the terms, not from kept frequencies: a run's documents are scored through the index from now on, so
  // their frequencies would serve nothing.
  docs.forEach((doc, i) => {
    const terms = stringsOf(doc);
    lengths[i] = terms.length;
    totalLength += terms.length;
    for (const t of terms) {
      const list = postings.get(t);
      if (list === undefined) postings.set(t, [[i, 1]]);
      else {
        const last = list[list.length - 1]!;
        if (last[0] === i) last[1] += 1;
        else list.push([i, 1]);
      }
    }
  });
  return { docs, lengths, totalLength, postings };
}

/** The indexed run `documents` ends with, if any: found by its last document, then checked object by object. */
function runEndingOf(documents: readonly Bm25Document[]): IndexedRun | null {
  const n = documents.length;
  const last = documents[n - 1];
  if (last === undefined) return null;
  const known = RUNS.get(last);
  if (known !== undefined && known.docs.length <= n && known.docs.every((d, i) => d === documents[n - known.docs.length + i])) {
    RUNS.delete(last);
    RUNS.set(last, known);
    return known;
  }
  const previous = PREVIOUS.get(last) ?? [];
  PREVIOUS.delete(last);
  PREVIOUS.set(last, documents);
  for (const k of PREVIOUS.keys()) {
    if (PREVIOUS.size <= MAX_RUNS) break;
    PREVIOUS.delete(k);
  }
  let common = 0;
  while (common < n && common < previous.length && documents[n - 1 - common] === previous[previous.length - 1 - common]) common++;
  if (common < MIN_RUN) return null;
  const run = indexRun(documents.slice(n - common));
  RUNS.set(last, run);
  for (const k of RUNS.keys()) {
    if (RUNS.size <= MAX_RUNS) break;
    RUNS.delete(k);
  }
  return run;
}

/**
 * BM25 score of every document against the query terms, by document index; 0 for documents that match nothing.
 * Terms must already be normalized. A query term given twice counts twice. With `plainTerms`, the caller vouches
 * that no term (document's or query's) is empty or holds a space (as `termsOf`'s never do), so the terms are the
 * tokens and are not checked one by one, and that it does not change a list once scored (its term frequencies are
 * kept with it). Encoded documents are read as their strings; only with `plainTerms` are they counted on their
 * bytes (the same frequencies and lengths, so the same scores).
 */
export function bm25Scores(documents: readonly Bm25Document[], queryTerms: readonly string[], plainTerms = false): number[] {
  const tokensOf = plainTerms ? stringsOf : (doc: Bm25Document): readonly string[] => spaceTokensOf(stringsOf(doc));
  const scores = documents.map(() => 0);
  if (documents.length === 0 || queryTerms.length === 0) return scores;

  const query = tokensOf(queryTerms);
  /** Distinct query token → its position among the distinct ones. */
  const slot = new Map<string, number>();
  for (const t of query) if (!slot.has(t)) slot.set(t, slot.size);
  const pads = Math.max(0, MIN_DOCS - documents.length);
  const totalDocs = documents.length + pads;

  // One pass over the documents: lengths, and each query token's frequency in each document holding it. A run the
  // list ends with that is indexed already is read from its index (same postings, appended in document order).
  const run = plainTerms ? runEndingOf(documents) : null;
  const head = run === null ? documents.length : documents.length - run.docs.length;
  const lengths = new Array<number>(documents.length);
  /** Per distinct query token: [document index, frequency] in document order. */
  const postings: [number, number][][] = Array.from({ length: slot.size }, () => []);
  let totalLength = pads; // each placeholder document is one token long
  const querySlots = [...slot];
  const headDocuments = run === null ? documents : documents.slice(0, head);
  // Encoded documents seen for the first time are counted on their bytes against the query's distinct tokens.
  let matcher: Utf8Matcher | null | undefined;
  let counts: Int32Array | undefined;
  headDocuments.forEach((terms, d) => {
    // The document's term frequencies, kept with its term list once it is scored again (callers score the same
    // lists at every recall): a lookup per query token instead of one per document token; the same postings in the
    // same order.
    const tf = plainTerms ? keptFrequenciesOf(terms) : null;
    if (tf !== null) {
      const length = isEncoded(terms) ? terms.count : terms.length;
      lengths[d] = length;
      totalLength += length;
      for (const [t, s] of querySlots) {
        const f = tf.get(t);
        if (f !== undefined) postings[s]!.push([d, f]);
      }
      return;
    }
    if (plainTerms && isEncoded(terms)) {
      matcher ??= Utf8Matcher.of(querySlots.map(([t]) => t));
      counts ??= new Int32Array(slot.size);
      const counted = matcher !== null && terms.countInto(matcher, counts);
      if (counted) {
        lengths[d] = terms.count;
        totalLength += terms.count;
        for (let s = 0; s < counts.length; s++) {
          if (counts[s] !== 0) postings[s]!.push([d, counts[s]!]);
        }
      }
      counts.fill(0);
      if (counted) return;
    }
    const tokens = tokensOf(terms);
    lengths[d] = tokens.length;
    totalLength += tokens.length;
    for (const t of tokens) {
      const s = slot.get(t);
      if (s === undefined) continue;
      const list = postings[s]!;
      const last = list[list.length - 1];
      if (last !== undefined && last[0] === d) last[1] += 1;
      else list.push([d, 1]);
    }
  });
  if (run !== null) {
    for (let i = 0; i < run.docs.length; i++) lengths[head + i] = run.lengths[i]!;
    totalLength += run.totalLength;
    for (const [t, s] of querySlots) {
      const found = run.postings.get(t);
      if (found !== undefined) for (const [i, f] of found) postings[s]!.push([head + i, f]);
    }
  }
  const placeholderSlot = slot.get(PLACEHOLDER_TERM);

  const avgLength = totalLength / totalDocs;
  const weight = new Array<number[] | null>(slot.size).fill(null);
  for (let s = 0; s < slot.size; s++) {
    const list = postings[s]!;
    // Placeholder documents hold the placeholder token: it is in pads more documents (they are never scored).
    const n = list.length + (s === placeholderSlot ? pads : 0);
    if (n === 0) continue;
    const idf = Math.log((totalDocs - n + 0.5) / (n + 0.5) + IDF_K);
    weight[s] = list.map(([d, freq]) => {
      const normalization = 1 - B + B * (lengths[d]! / avgLength);
      return Math.sign(freq) * Number((Math.abs((freq * (K1 + 1)) / (K1 * normalization + freq)) * idf).toFixed(PRECISION));
    });
  }
  // Summed in query order, a repeated query token once per occurrence, as wink's search sums them.
  for (const t of query) {
    const s = slot.get(t)!;
    const w = weight[s];
    if (w === null || w === undefined) continue;
    const list = postings[s]!;
    for (let i = 0; i < list.length; i++) {
      const d = list[i]![0];
      scores[d] = w[i]! + scores[d]!;
    }
  }
  return scores;
}
