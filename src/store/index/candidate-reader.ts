import type { ChunkKind } from '../../record/chunk-record.js';
import { decodeDirEntry, type DirEntry } from '../../record/dir-entry.js';
import type { DecodedEntries } from './decoded-entries.js';
import { corruption } from '../../errors.js';
import { indexKeywords, keywordMatches, keywordStats, newestChunks, pendingChunks, snapshotKeys, type IndexHit, type IndexKeys, type ParsedPostings } from './candidate-index.js';
import type { CandidateReadMemo, CandidateVersion } from './candidate-read-memo.js';
import type { KeywordStats, ListedEntry } from '../../api/results.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import { SEP, dirKey } from '../kv/keys.js';
import type { AnyLevel } from '../../api/store-options.js';

/** What to gather (see `readCandidates`). */
export interface CandidateQuery {
  readonly userId: string;
  /** Null: every session of the user. */
  readonly sessionId: string | null;
  readonly kinds: readonly ChunkKind[];
  readonly keywords: readonly string[];
  /** Newest chunks always included. */
  readonly window: number;
  /** Older chunks sharing a keyword with the query, most shared keywords first, newer first on a tie. */
  readonly prefilter: number;
  /** Also read the statistics BM25 needs (`CandidateRead.stats`); default false (SELECT computes its own). */
  readonly stats?: boolean;
}

/**
 * How many pending chunks the user has at most, read right after the snapshot is taken (in the same synchronous
 * step, so no commit's count update falls between): the engine's in-memory count, which a batch raises before it
 * can land and lowers only after (txn-commit.ts). Without it, the pending list is scanned from its start.
 */
export type PendingBound = (userId: string) => number;

export interface CandidateRead {
  /** Directory entries of the candidates (live, of the requested kinds), window first then older matches. */
  readonly entries: ListedEntry[];
  /** Index keys read (the I/O, bounded by the query, never by the history). */
  readonly indexKeysRead: number;
  /** Statistics BM25 needs over the scope's user (all sessions), for the normalized query keywords; null unless asked. */
  readonly stats: KeywordStats | null;
}

/** What a gathering may reuse of earlier ones (store-core.ts owns them; the cold reopen empties them). */
export interface CandidateCaches {
  /** Decoded directory entries, checked against the bytes read. */
  readonly decoded: DecodedEntries;
  /** Index ranges and directory values read earlier at the user's current version. */
  readonly memo: CandidateReadMemo;
  readonly version: CandidateVersion;
}

/** Total postings read per query, spread over its keywords. */
export const POSTINGS_READ_BUDGET = 4096;

/**
 * Gathers a bounded candidate set through the candidate index, from one snapshot: the `window` newest chunks of the
 * scope (one bounded reverse scan per kind), then, older than the window, the newest postings of each query keyword
 * (per keyword at least `prefilter` and at most 4 × `prefilter`, within `POSTINGS_READ_BUDGET` overall), scored by
 * how many query keywords found each chunk; the best `prefilter` of those; finally one `getMany` of the chosen
 * directory entries. Work and memory: O(window + POSTINGS_READ_BUDGET), whatever the history length.
 *
 * Compared with scanning the whole scope this is exact for the window and for every chunk among the newest
 * postings of a query keyword; an older chunk that matches only keywords with many newer matches may be missed.
 * @internal
 */
export async function readCandidates(db: AnyLevel, cf: ColumnFamilies, q: CandidateQuery, pendingBound?: PendingBound, caches?: CandidateCaches): Promise<CandidateRead> {
  const decoded = caches?.decoded;
  const entryOf = (h: IndexHit, v: Buffer | undefined): DirEntry => liveEntryOf(q.userId, h, v, decoded);
  // Before the snapshot, in the same synchronous step where it is known at once (see CandidateVersion); the memo
  // is consulted only once it is known, before any read.
  const version = caches?.version(q.userId) ?? null;
  const snapshot = db.snapshot();
  const mostPending = pendingBound?.(q.userId);
  // A read still running when another step fails: it settles before the snapshot it reads from is closed.
  let reading: Promise<unknown> | null = null;
  try {
    const memo = caches?.memo.view(q.userId, await version) ?? null;
    const direct = snapshotKeys(cf.candidates, snapshot);
    const keysOf: IndexKeys = memo === null ? direct : (r) => memo.scan(r, () => direct(r) as Promise<string[]>);
    const readDir = (keys: string[]): Promise<(Buffer | undefined)[]> => cf.dir.getMany(keys, { snapshot });
    const dirValues = (keys: string[]): Promise<(Buffer | undefined)[]> => (memo === null ? readDir(keys) : memo.values(keys, readDir));
    // With the memo, entries decoded at this version are found by their hit's tail (the same string at every warm
    // recall, its hash kept) without building their directory keys.
    const entriesOf = async (hits: readonly IndexHit[]): Promise<DirEntry[]> => {
      if (hits.length === 0) return [];
      const keyOf = (i: number): string => dirKey(q.userId, hits[i]!.sessionId, hits[i]!.chunkId);
      if (memo === null) return (await dirValues(hits.map((_, i) => keyOf(i)))).map((v, i) => entryOf(hits[i]!, v));
      return memo.decoded(
        hits.map((h) => h.tail),
        keyOf,
        readDir,
        (_key, v, i) => entryOf(hits[i]!, v),
      );
    };
    // On a memo hit the window's keys are not parsed again, nor its entries checked against their bytes again.
    const windowId = `w${q.sessionId ?? ''}\u0000${q.kinds.join(',')}\u0000${q.window}`;
    const newest =
      memo === null
        ? await newestChunks(keysOf, q.userId, q.sessionId, q.kinds, q.window)
        : await memo.derive(windowId, (w) => hitsBytes(w.hits), () => newestChunks(keysOf, q.userId, q.sessionId, q.kinds, q.window));
    const window = newest.hits;
    // The window's entries are read now, while the pending list and the postings are scanned: on a cold read their
    // page faults and table-block loads overlap those of the scans instead of following them.
    const windowEntries = entriesOf(window);
    reading = windowEntries.catch(() => undefined); // handled here; awaited (and thrown) below
    let read = window.length;
    const keywords = indexKeywords(q.keywords);
    // Older matches are looked for only when the window is full (else it is the whole scope).
    const full = window.length >= q.window && q.prefilter > 0 && keywords.length > 0;
    // Chunks whose postings the posting merge has not written yet: few, and usually among the window. Needed for
    // the statistics, and for older matches (a pending chunk older than the window has no postings to be found by).
    const pending = full || q.stats === true ? await pendingChunks(keysOf, q.userId, q.kinds, mostPending) : [];
    read += pending.length;
    const inWindow = new Set(window.map((h) => h.tail));
    const pendingOutside = pending.filter((h) => !inWindow.has(h.tail));
    const outsideValues = pendingOutside.length === 0 ? [] : await dirValues(pendingOutside.map((h) => dirKey(q.userId, h.sessionId, h.chunkId)));
    const outside = pendingOutside.map((h, i) => ({ hit: h, entry: entryOf(h, outsideValues[i]) }));
    let older: IndexHit[] = [];
    // Fewer chunks than the window: the window is the whole scope, nothing older exists.
    if (full) {
      const perKeyword = Math.max(q.prefilter, Math.min(4 * q.prefilter, Math.floor(POSTINGS_READ_BUDGET / (keywords.length * q.kinds.length))));
      const oldest = window[window.length - 1]!.tail;
      const parsed: ParsedPostings | undefined =
        memo === null ? undefined : (r, read) => memo.derive(`p${r.limit}\u0000${r.gte}\u0000${r.lt}`, (hits) => hitsBytes(hits.map((h) => h.hit)), read);
      // Only the kinds the scope has chunks of: the posting lists of the others are empty in this snapshot (the
      // budget per list stays that of every kind asked, so what is found does not depend on this).
      const { found, scanned } = await keywordMatches(keysOf, cf.candidates, q.userId, q.sessionId, newest.kinds, keywords, perKeyword, oldest, snapshot, parsed);
      read += scanned;
      // Pending chunks older than the window (written with an old creation time) have no postings yet: match them
      // on their directory entry's keywords.
      const wanted = new Set(keywords);
      for (const { hit, entry } of outside) {
        if (hit.tail >= oldest || (q.sessionId !== null && hit.sessionId !== q.sessionId)) continue;
        let score = 0;
        for (const k of indexKeywords(entry.keywords)) if (wanted.has(k)) score++;
        if (score > 0) found.set(hit.sessionId + SEP + hit.chunkId, { hit, score });
      }
      older = [...found.values()]
        .sort((a, b) => b.score - a.score || (a.hit.tail < b.hit.tail ? 1 : a.hit.tail > b.hit.tail ? -1 : 0))
        .slice(0, q.prefilter)
        .map((f) => f.hit);
    }
    const hits = [...window, ...older];
    // Older matches are strictly older than the window's oldest chunk: no entry is read twice.
    const decodedEntries = [...(await windowEntries), ...(await entriesOf(older))];
    const entries: ListedEntry[] = decodedEntries.map((entry, i) => ({ userId: q.userId, sessionId: hits[i]!.sessionId, chunkId: hits[i]!.chunkId, entry }));
    if (q.stats !== true) return { entries, indexKeysRead: read, stats: null };
    // The counters cover posted chunks; the pending ones are added from their entries (window or read above).
    const byTail = new Map<string, DirEntry>();
    entries.forEach((e, i) => byTail.set(hits[i]!.tail, e.entry));
    for (const o of outside) byTail.set(o.hit.tail, o.entry);
    const posted = await keywordStats(cf.candidates, q.userId, q.kinds, keywords, snapshot);
    const stats = withPending(posted, pending.map((h) => byTail.get(h.tail)!));
    return { entries, indexKeysRead: read, stats };
  } finally {
    if (reading !== null) await reading;
    await snapshot.close();
  }
}

/** Rough heap cost of parsed index hits (their strings and objects). */
function hitsBytes(hits: readonly IndexHit[]): number {
  let n = 0;
  for (const h of hits) n += 4 * h.tail.length + 96;
  return n;
}

/** The directory entry an index hit names; it must be live (index and directory change in one batch). */
function liveEntryOf(userId: string, h: IndexHit, v: Buffer | undefined, decoded: DecodedEntries | undefined): DirEntry {
  const key = dirKey(userId, h.sessionId, h.chunkId);
  if (v === undefined) throw corruption(`candidate index names ${JSON.stringify(h.sessionId + SEP + h.chunkId)} of user ${JSON.stringify(userId)}, which has no directory entry`);
  const what = `directory entry ${JSON.stringify(key)}`;
  const entry = decoded === undefined ? decodeDirEntry(v, what) : decoded.decode(key, v, what, '');
  if (entry.state !== 'live') throw corruption(`candidate index names deleted chunk ${JSON.stringify(key)}`);
  return entry;
}

/** Posted statistics plus those of the pending chunks' entries. */
function withPending(s: KeywordStats, pending: readonly DirEntry[]): KeywordStats {
  if (pending.length === 0) return s;
  let docs = s.docs;
  let totalKeywords = s.totalKeywords;
  const df = new Map(s.df);
  for (const e of pending) {
    const kws = indexKeywords(e.keywords);
    docs++;
    totalKeywords += kws.length;
    for (const k of kws) if (df.has(k)) df.set(k, df.get(k)! + 1);
  }
  return { docs, totalKeywords, df };
}
