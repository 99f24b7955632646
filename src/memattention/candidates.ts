/**
 * The candidate set M of SELECT (the Akashic paper, Algorithm 1 lines 6 and 16), gathered from directory metadata only
 * (keywords, time, tokens; never a chunk body).
 *
 * The paper shows the model every chunk of the namespace. That makes SELECT's input grow with history, which defeats
 * the bounded-work point of the gate, so the set is capped:
 *
 *   M = the `window` newest chunks of the scope
 *     ∪ up to `prefilter` older chunks sharing at least one keyword with the query (most shared keywords first,
 *       newer first on a tie),
 *
 * each with at most `keywords` keywords. SELECT therefore sees at most (window + prefilter) × keywords keywords
 * whatever the history length. The set is found through the store's candidate index (`AkashicStore.candidates`:
 * recency lists and keyword postings kept in the same batch as the directory), so the I/O is bounded too: the
 * window, a fixed budget of postings, and the chosen entries, never the scope's other entries. Only a database
 * without the index (format 1, opened read-only) falls back to scanning the scope's directory.
 * @internal
 */
import type { CompiledFilter } from '../api/chunk-filter.js';
import type { AkashicStore } from '../engine/akashic-store.js';
import { trustedCalls } from '../engine/internal-seams.js';
import type { ChunkMetaView } from '../model/memory-model.js';
import type { ChunkRef, LocatedRef } from '../api/chunk-input.js';
import { refString } from '../api/key-strings.js';
import type { ListedEntry, ListedChunk, SupersededMark, KeywordStats } from '../api/results.js';
import type { ScopeTest } from '../api/scope-filter.js';
import type { ChunkKind } from '../record/chunk-record.js';
import { KEYWORD_TERMS_VERSION } from '../model/keywords.js';
import { withEncodedTerms } from '../model/encoded-terms.js';
import { keywordCountOf, storedTermsOf, type DirEntry } from '../record/dir-entry.js';

/** A chunk shown to SELECT, with what is needed to fetch it and to compare-and-swap it later. */
export interface Candidate {
  readonly ref: ChunkRef;
  readonly version: number;
  readonly meta: ChunkMetaView;
  /** Set on a superseded version (recall with `includeSuperseded`): read it from history, not from the blocks. */
  readonly superseded?: SupersededMark;
  /** Where this version was stored when the candidates were gathered (current versions): fetch by slot. */
  readonly located?: LocatedRef;
}

/** Which versions and scopes candidates are drawn from (any of them makes the candidates come from a scan). */
export interface CandidateView {
  /** The agent/run scope test, compiled once by the caller (`compileScope`); null: every scope. */
  readonly scope: ScopeTest;
  /** Chunks as they were at this time. */
  readonly asOf?: number;
  /** Kept superseded versions are candidates too. */
  readonly includeSuperseded?: boolean;
}

export interface CandidateBounds {
  readonly window: number;
  readonly prefilter: number;
  readonly keywords: number;
}

export interface CandidateSet {
  /** Oldest first. */
  readonly candidates: readonly Candidate[];
  /** Index keys (or, without the index, directory entries) read to find them. */
  readonly scanned: number;
  /**
   * Statistics of the user's live chunks of the accepted kinds that BM25 needs (document count, total keyword
   * count, document frequency of each normalized query keyword); null without the index or when not asked for.
   */
  readonly stats: KeywordStats | null;
}

/** Which chunks may be candidates: their kinds (read through the index), then an optional finer test. */
export interface CandidateFilter {
  readonly kinds: ReadonlySet<ChunkKind>;
  readonly accept?: (e: ListedEntry) => boolean;
  /**
   * The caller's filter on attributes and time. When given, candidates come from a scan of the scope with the
   * filter applied first (`AkashicStore.list`), so the window and the keyword matches are drawn from matching
   * chunks only: exact, at O(scope) directory entries per call instead of the index's bounded read.
   */
  readonly filter?: CompiledFilter;
  /** Agent/run scopes, as-of time and superseded versions; validated by the caller. */
  readonly view?: CandidateView;
  /** Also return the BM25 statistics (`CandidateSet.stats`, through the index only); default false. */
  readonly stats?: boolean;
}

interface Scored {
  readonly e: ListedChunk;
  readonly score: number;
}

const newerFirst = (a: ListedEntry, b: ListedEntry): number =>
  b.entry.createdAt - a.entry.createdAt || (a.chunkId < b.chunkId ? 1 : a.chunkId > b.chunkId ? -1 : 0);

/** Keeps the best `k` items by `cmp` (best first) with O(k) memory: sorts and cuts whenever it reaches 2k. */
class TopK<T> {
  #items: T[] = [];
  readonly #k: number;
  readonly #cmp: (a: T, b: T) => number;

  constructor(k: number, cmp: (a: T, b: T) => number) {
    this.#k = k;
    this.#cmp = cmp;
  }

  add(item: T): void {
    if (this.#k === 0) return;
    this.#items.push(item);
    if (this.#items.length >= 2 * this.#k) this.#cut();
  }

  #cut(): void {
    this.#items.sort(this.#cmp);
    this.#items.length = Math.min(this.#items.length, this.#k);
  }

  result(): T[] {
    this.#cut();
    return this.#items;
  }
}

/**
 * Gathers the bounded candidate set of one user's scope (`sessionId` null: all sessions) among chunks `filter`
 * admits. Query keywords are compared lower-cased.
 */
export async function gatherCandidates(
  store: AkashicStore,
  userId: string,
  sessionId: string | null,
  queryKeywords: readonly string[],
  bounds: CandidateBounds,
  filter: CandidateFilter,
): Promise<CandidateSet> {
  const accept = (e: ListedEntry): boolean => filter.kinds.has(e.entry.kind) && (filter.accept?.(e) ?? true);
  const v = filter.view;
  const viewed = v !== undefined && (v.scope !== null || v.asOf !== undefined || v.includeSuperseded === true);
  if (filter.filter !== undefined || viewed) return scanCandidates(store, userId, sessionId, queryKeywords, bounds, accept, filter.filter, v);
  const indexed = await store[trustedCalls].candidates(userId, {
    sessionId,
    kinds: [...filter.kinds],
    keywords: queryKeywords,
    window: bounds.window,
    prefilter: bounds.prefilter,
    ...(filter.stats === true ? { stats: true } : {}),
  });
  if (indexed === null) return scanCandidates(store, userId, sessionId, queryKeywords, bounds, accept);
  const all = indexed.entries.filter(accept).sort((a, b) => -newerFirst(a, b));
  return { scanned: indexed.indexKeysRead, candidates: all.map((e) => indexedCandidate(e, bounds)), stats: indexed.stats };
}

/**
 * The candidate made from a directory entry object, kept while that object lives. The store hands out the same
 * read-only entry object for as long as the stored entry is unchanged (its decoded-entry caches), so a warm recall
 * reuses the few hundred candidates of the last one — their objects and id strings (whose hashes the id sets and
 * maps of SELECT and the fetch then find computed) — instead of building them again. A function of the entry, its
 * ids and the keyword bound, all checked on a hit: never stale, and gone with the entry object.
 */
const CANDIDATES_BY_ENTRY = new WeakMap<object, { readonly candidate: Candidate; readonly keywordBound: number }>();

function indexedCandidate(e: ListedChunk, bounds: CandidateBounds): Candidate {
  if (e.superseded !== undefined) return toCandidate(e, bounds);
  const known = CANDIDATES_BY_ENTRY.get(e.entry);
  if (known !== undefined && known.keywordBound === bounds.keywords && known.candidate.ref.sessionId === e.sessionId && known.candidate.ref.chunkId === e.chunkId) {
    return known.candidate;
  }
  const candidate = toCandidate(e, bounds);
  CANDIDATES_BY_ENTRY.set(e.entry, { candidate, keywordBound: bounds.keywords });
  return candidate;
}

/** A candidate's SELECT id: its ref, plus the version for a superseded one (several versions of a chunk may compete). */
function candidateKey(e: ListedChunk): string {
  return refString(e.sessionId, e.chunkId) + (e.superseded === undefined ? '' : `@${e.entry.version}`);
}

/**
 * Object literals of fixed shape, not conditional spreads: recall turns a few hundred entries into candidates at
 * every call, and the spreads cost several times the rest of it (dictionary-mode objects for the collector).
 * Same properties, in the same order, as `{ ...a, ...(x === undefined ? {} : { x }) }` gives.
 */
function toCandidate(e: ListedChunk, bounds: CandidateBounds): Candidate {
  const d = e.entry;
  const ref = { sessionId: e.sessionId, chunkId: e.chunkId };
  const id = candidateKey(e);
  const meta = storedTermsOf(d) === undefined ? eagerMeta(e, d, id, bounds) : lazyMeta(e, d, id, bounds);
  if (e.superseded !== undefined) return { ref, version: d.version, superseded: e.superseded, meta };
  const loc = d.location;
  if (loc === null) return { ref, version: d.version, meta };
  const located: LocatedRef =
    d.expiresAt === undefined
      ? { sessionId: e.sessionId, chunkId: e.chunkId, version: d.version, location: loc }
      : { sessionId: e.sessionId, chunkId: e.chunkId, version: d.version, location: loc, expiresAt: d.expiresAt };
  return { ref, version: d.version, located, meta };
}

/** The candidate's view of an entry whose keywords and terms are decoded already (or have no stored terms). */
function eagerMeta(e: ListedChunk, d: DirEntry, id: string, bounds: CandidateBounds): ChunkMetaView {
  // The stored list itself when it is within the bound (kept entries hand out one frozen list: SELECT's memo by list hits).
  const whole = d.keywords.length <= bounds.keywords;
  const keywords = whole ? d.keywords : d.keywords.slice(0, bounds.keywords);
  // The stored terms are those of the whole list, under the derivation that wrote them: used only when both match.
  const terms = whole && d.keywordTerms !== undefined && d.keywordTerms.version === KEYWORD_TERMS_VERSION ? d.keywordTerms.terms : undefined;
  return d.embedding === undefined
    ? terms === undefined
      ? { id, sessionId: e.sessionId, createdAt: d.createdAt, tokenCount: d.tokenCount, keywords }
      : { id, sessionId: e.sessionId, createdAt: d.createdAt, tokenCount: d.tokenCount, keywords, keywordTerms: terms }
    : terms === undefined
      ? { id, sessionId: e.sessionId, createdAt: d.createdAt, tokenCount: d.tokenCount, keywords, embedding: d.embedding }
      : { id, sessionId: e.sessionId, createdAt: d.createdAt, tokenCount: d.tokenCount, keywords, embedding: d.embedding, keywordTerms: terms };
}

/** What a lazily built candidate view reads its keywords and terms from. */
class LazyKeywords {
  #keywords: readonly string[] | undefined;

  constructor(
    readonly entry: DirEntry,
    readonly bound: number,
  ) {}

  /** The entry's keywords (the same list when within the bound, else its first `bound`), made once. */
  keywords(): readonly string[] {
    if (this.#keywords !== undefined) return this.#keywords;
    const all = this.entry.keywords;
    return (this.#keywords = all.length <= this.bound ? all : all.slice(0, this.bound));
  }
}

const LAZY = Symbol('lazyKeywords');
type LazyMeta = ChunkMetaView & { readonly [LAZY]: LazyKeywords };

/** Getters shared by every lazily built view (views keep a few shapes), reading the hidden `LAZY` property. */
const KEYWORDS_GETTER: PropertyDescriptor = {
  get(this: LazyMeta) {
    return this[LAZY].keywords();
  },
  enumerable: true,
};
const TERMS_GETTER: PropertyDescriptor = {
  get(this: LazyMeta) {
    return this[LAZY].entry.keywordTerms!.terms;
  },
  enumerable: true,
};

/**
 * The same view of an entry that still holds its keywords and terms encoded (`decodeDirEntryLazily`): `keywords` and
 * `keywordTerms` are enumerable getters that decode them on first read (so the view reads, spreads and serializes as
 * the eager one), and SELECT reads the encoded terms (`encodedTermsOf`) without decoding them at all. Most
 * candidates of a recall match no query term, and only the few it picks or scores by meaning have their keywords
 * read.
 */
function lazyMeta(e: ListedChunk, d: DirEntry, id: string, bounds: CandidateBounds): ChunkMetaView {
  const whole = keywordCountOf(d) <= bounds.keywords;
  const stored = storedTermsOf(d)!;
  const useTerms = whole && stored.version === KEYWORD_TERMS_VERSION;
  // Placeholders, replaced by the getters in place (the properties keep the eager view's order).
  const meta: ChunkMetaView =
    d.embedding === undefined
      ? useTerms
        ? { id, sessionId: e.sessionId, createdAt: d.createdAt, tokenCount: d.tokenCount, keywords: [], keywordTerms: [] }
        : { id, sessionId: e.sessionId, createdAt: d.createdAt, tokenCount: d.tokenCount, keywords: [] }
      : useTerms
        ? { id, sessionId: e.sessionId, createdAt: d.createdAt, tokenCount: d.tokenCount, keywords: [], embedding: d.embedding, keywordTerms: [] }
        : { id, sessionId: e.sessionId, createdAt: d.createdAt, tokenCount: d.tokenCount, keywords: [], embedding: d.embedding };
  // One property at a time: faster than `Object.defineProperties`.
  Object.defineProperty(meta, 'keywords', KEYWORDS_GETTER);
  Object.defineProperty(meta, LAZY, { value: new LazyKeywords(d, bounds.keywords) });
  if (useTerms) {
    Object.defineProperty(meta, 'keywordTerms', TERMS_GETTER);
    withEncodedTerms(meta, stored.terms);
  }
  return meta;
}

/** The same set by scanning every live directory entry of the scope (databases without the candidate index). */
async function scanCandidates(
  store: AkashicStore,
  userId: string,
  sessionId: string | null,
  queryKeywords: readonly string[],
  bounds: CandidateBounds,
  accept: (e: ListedEntry) => boolean,
  filter?: CompiledFilter,
  view?: CandidateView,
): Promise<CandidateSet> {
  const query = new Set(queryKeywords.map((k) => k.toLowerCase()));
  const recent = new TopK<ListedChunk>(bounds.window, newerFirst);
  // Keep window + prefilter matches: at most `window` of them can turn out to be in `recent`.
  const matching = new TopK<Scored>(bounds.window + bounds.prefilter, (a, b) => b.score - a.score || newerFirst(a.e, b.e));
  let scanned = 0;
  const q = {
    sessionId,
    filter: filter ?? null,
    scope: view?.scope ?? null,
    asOf: view?.asOf ?? null,
    includeDeleted: false,
    includeExpired: false,
    includeSuperseded: view?.includeSuperseded === true,
  };
  for await (const e of store[trustedCalls].list(userId, q)) {
    if (!accept(e)) continue;
    scanned++;
    recent.add(e);
    if (bounds.prefilter > 0 && query.size > 0) {
      let score = 0;
      for (const k of e.entry.keywords) if (query.has(k.toLowerCase())) score++;
      if (score > 0) matching.add({ e, score });
    }
  }
  const chosen = recent.result();
  const inRecent = new Set(chosen.map(candidateKey));
  const older = matching
    .result()
    .filter((s) => !inRecent.has(candidateKey(s.e)))
    .slice(0, bounds.prefilter)
    .map((s) => s.e);
  const all = [...chosen, ...older].sort((a, b) => -newerFirst(a, b));
  return { scanned, candidates: all.map((e) => toCandidate(e, bounds)), stats: null };
}
