/**
 * Query-aware retrieval (the Akashic paper, Algorithm 1 lines 14–20; §4.3 request admission): K_q ← BUILDMETA(query);
 * candidate metas without bodies (candidates.ts); S ← SELECT(K_q, M, p); FETCHBYID by slot (the candidates carry
 * their locations, so no second directory read); cut to the memory token budget dropping the lowest-ranked first;
 * SORTBYTIME; the text to prepend.
 * @internal
 */
import type { CompiledFilter } from '../api/chunk-filter.js';
import type { AkashicStore } from '../engine/akashic-store.js';
import { trustedCalls } from '../engine/internal-seams.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import { isCalendarTerm, termsOf } from '../model/keywords.js';
import { EmbeddedModel } from '../model/embedded-model.js';
import { gatherCandidates, type Candidate, type CandidateView } from './candidates.js';
import type { SupersededMark } from '../api/results.js';
import { denseRanking, fuseRankings } from './hybrid-select.js';
import { selectSentencePassages } from './sentence-passages.js';
import { withoutSpeakers } from './speaker-names.js';
import type { ChunkPieceCache } from './chunk-pieces.js';
import { CHUNK_SEPARATOR, lexicalPassageScores, selectPassages, type RecalledPassage } from './passages.js';
import type { CheckedModel } from './model-calls.js';
import type { MemoryScope, ResolvedMemoryOptions } from './options.js';
import { countTokensYielding } from '../model/tokenizer.js';
import { aboveFloor, floorScore } from './relevance-floor.js';
import { questionSlot, statesSlot, type FactSlot } from '../model/fact-reading.js';

export interface RetrievalRequest {
  readonly userId: string;
  readonly sessionId: string;
  readonly query: string;
  readonly topP: number;
  readonly budget: number;
  readonly scope: MemoryScope;
  /** Compiled once by the caller (compileFilter). */
  readonly filter?: CompiledFilter;
  /** Agent/run scopes, as-of time, superseded versions (validated by the caller). */
  readonly view?: CandidateView;
  /** The relevance floor of this recall; default the option `relevanceFloor`. */
  readonly floor?: number;
}

/** A recalled chunk; a superseded version (recall with `includeSuperseded`) is marked `superseded`. */
export type RecalledChunk = ChunkRecord & { readonly superseded?: SupersededMark };

export interface Retrieval {
  /** Chunks kept (whole, or through at least one passage) under the budget, in chronological order. */
  readonly chunks: ChunkRecord[];
  /** The passages recalled, in the order of `text`, with the turns each carries. */
  readonly passages: RecalledPassage[];
  /** The recalled text, oldest chunk first, chunks separated by a blank line. */
  readonly text: string;
  /** Tokens of `text`. */
  readonly tokenCount: number;
  /** Distinct blocks the fetch touched. */
  readonly blocksTouched: number;
  readonly candidates: number;
  /** Selected chunks left out to respect the budget (or deleted since the listing). */
  readonly dropped: number;
}

export { CHUNK_SEPARATOR };

/**
 * A question about a known kind of fact ("Where does Bob work now?") ranks the statements of that fact first,
 * whatever words they use ("I started at Globex"): each gains the best score of the set (at least 1), so among
 * them the usual score decides, then the newer (the sort's tie-break). The rule is the one reconciliation uses to
 * find updates (`model/fact-updates.ts`).
 */
function withFactBonus(scores: readonly number[], texts: readonly string[], slot: FactSlot): number[] {
  const bonus = Math.max(1, ...scores);
  return scores.map((s, i) => (statesSlot(texts[i] ?? '', slot) ? s + bonus : s));
}

/** The terms of the speakers of the chunks' turns (chunks not written one line per turn have none). */
function speakersOf(chunks: readonly ChunkRecord[], pieces: ChunkPieceCache): Set<string> {
  const terms = new Set<string>();
  for (const c of chunks) for (const t of pieces.of(c).speakerTerms()) terms.add(t);
  return terms;
}

export function chronological(a: ChunkRecord, b: ChunkRecord): number {
  return a.createdAt - b.createdAt || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0);
}

/** `pieces`: the memory's cache of what is derived from each chunk's text (made with `options.tokenizer`). */
export async function retrieve(store: AkashicStore, model: CheckedModel, options: ResolvedMemoryOptions, req: RetrievalRequest, pieces: ChunkPieceCache): Promise<Retrieval> {
  const [keywords, queryVector] = await Promise.all([
    model.buildMeta(req.query),
    options.embedder === null ? Promise.resolve(undefined) : options.embedder.embed([req.query]).then((v) => v[0]),
  ]);
  const bounds = { window: options.candidateWindow, prefilter: options.candidatePrefilter, keywords: options.candidateKeywords };
  const { candidates } = await gatherCandidates(store, req.userId, req.scope === 'session' ? req.sessionId : null, keywords, bounds, {
    kinds: options.recallKinds,
    ...(req.filter === undefined ? {} : { filter: req.filter }),
    ...(req.view === undefined ? {} : { view: req.view }),
  });
  const metas = candidates.map((c) => c.meta);
  const lexical = await model.select({ text: req.query, keywords }, metas, req.topP);
  const selected = queryVector === undefined ? lexical : fuseRankings(lexical, denseRanking(queryVector, metas, req.topP), req.topP);
  const empty: Retrieval = { chunks: [], passages: [], text: '', tokenCount: 0, blocksTouched: 0, candidates: candidates.length, dropped: 0 };
  if (selected.length === 0) return empty;
  // The selected few looked up in one pass (no map of the whole window).
  const wanted = new Set(selected);
  const byId = new Map<string, Candidate>();
  for (const c of candidates) if (wanted.has(c.meta.id)) byId.set(c.meta.id, c);
  const picked = selected.map((id) => byId.get(id)!);
  const current = picked.filter((c) => c.superseded === undefined);
  const old = picked.filter((c) => c.superseded !== undefined);
  const asOf = req.view?.asOf;
  // Fetch by slot: the candidates carry where each chunk was when they were gathered, so the fetch reads the blocks
  // directly instead of the directory first (a stale location falls back to the directory inside the store).
  const bySlot = asOf === undefined && current.every((c) => c.located !== undefined);
  const read = bySlot
    ? await store[trustedCalls].getManyBySlot(req.userId, current.map((c) => c.located!))
    : await store[trustedCalls].getMany(req.userId, current.map((c) => c.ref), asOf ?? null);
  const oldRecords = old.length === 0 ? [] : await store[trustedCalls].keptVersions(req.userId, old.map((c) => ({ ...c.ref, version: c.version })));
  const found = new Map<Candidate, RecalledChunk | null>();
  current.forEach((c, i) => found.set(c, read.chunks[i] ?? null));
  old.forEach((c, i) => {
    const r = oldRecords[i] ?? null;
    found.set(c, r === null ? null : { ...r, superseded: c.superseded! });
  });
  // Rank order (most relevant first); the budget cut pops from the end.
  const ranked = picked.map((c) => found.get(c) ?? null).filter((c): c is RecalledChunk => c !== null);
  const tok = options.tokenizer;
  const query = { text: req.query, keywords };
  const queryTerms = [...termsOf(keywords.join('\n')), ...termsOf(req.query)];
  const slot = questionSlot(req.query);
  type Query = { readonly text: string; readonly keywords: readonly string[] };
  const scoreAgainst = (q: Query) => async (texts: readonly string[]): Promise<number[]> => {
    const terms = q === query ? queryTerms : [...termsOf(q.keywords.join('\n')), ...termsOf(q.text)];
    const scores = (await model.scorePassages(q, texts)) ?? lexicalPassageScores(terms, texts);
    return slot === null ? scores : withFactBonus(scores, texts, slot);
  };
  const score = scoreAgainst(query);
  const floor = req.floor ?? options.relevanceFloor;
  if (options.recallUnit !== 'chunk') {
    const dated = termsOf(req.query).some(isCalendarTerm);
    const asked = new Set(queryTerms);
    const namedSpeaker = (prefix: string): boolean => termsOf(prefix).some((t) => asked.has(t));
    // The embedded model keeps the terms of the sentences it scored: their repeat keys reuse them. Only that model's
    // memo is trusted to hold `termsOf`'s terms (a caller's model is not asked), hence the class test.
    const scorer = options.model instanceof EmbeddedModel ? options.model : null;
    const sentenceTerms = scorer === null ? termsOf : (text: string): readonly string[] => scorer.knownTerms(text) ?? termsOf(text);
    const got =
      options.recallUnit === 'sentence'
        ? await selectSentencePassages(ranked, scoreAgainst(withoutSpeakers(query, speakersOf(ranked, pieces))), req.budget, pieces, chronological, dated, floor, namedSpeaker, sentenceTerms)
        : await selectPassages(ranked, score, req.budget, pieces, chronological, dated, floor);
    return {
      chunks: got.chunks,
      passages: got.passages,
      text: got.text,
      tokenCount: got.tokenCount,
      blocksTouched: read.blocksTouched,
      candidates: candidates.length,
      dropped: selected.length - got.chunks.length,
    };
  }
  const render = (cs: readonly ChunkRecord[]): string => [...cs].sort(chronological).map((c) => c.text).join(CHUNK_SEPARATOR);
  // Greedy in rank order: take each chunk whose addition still fits the budget, skip one that does not and go on
  // with the next (a too-large top chunk must not empty the recall while smaller relevant ones would fit).
  // The exact rendered text is counted, separators included.
  // Whole chunks are scored as passages are and held to the same floor; SELECT's order decides among those kept.
  const chunkScores = await score(ranked.map((c) => c.text));
  const threshold = floorScore(chunkScores, floor);
  const scoreOf = new Map(ranked.map((c, i) => [c, chunkScores[i] ?? 0]));
  const order = ranked.filter((c) => aboveFloor(scoreOf.get(c) ?? 0, threshold));
  let kept: ChunkRecord[] = [];
  let text = '';
  let tokenCount = 0;
  for (const c of order) {
    const tryKept = [...kept, c];
    const tryText = render(tryKept);
    const n = await countTokensYielding(tok, tryText);
    if (n <= req.budget) {
      kept = tryKept;
      text = tryText;
      tokenCount = n;
    }
  }
  const chunks = [...kept].sort(chronological);
  return {
    chunks,
    passages: chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId, text: c.text, turnIds: [...c.provenance], score: scoreOf.get(c) ?? 0, createdAt: c.createdAt })),
    text,
    tokenCount,
    blocksTouched: read.blocksTouched,
    candidates: candidates.length,
    dropped: selected.length - kept.length,
  };
}
