import type { AbstractKeyIteratorOptions, AbstractSnapshot } from 'abstract-level';
import type { ChunkKind } from '../../record/chunk-record.js';
import type { DirEntry } from '../../record/dir-entry.js';
import { INDEX_PRESENT } from '../../record/index-records.js';
import type { Family } from '../kv/column-families.js';
import { SEP, afterPrefix } from '../kv/keys.js';
import type { PurgeHook, PurgeScope } from '../ops/purge.js';
import type { Txn } from '../txn/txn.js';
import type { KeywordStats } from '../../api/results.js';

/**
 * The candidate index (column family `cidx`, docs/format.md "Candidate index"): what recall and reconciliation
 * need to gather a bounded candidate set without reading the scope's other directory entries.
 *
 *   r␀user␀kind␀ts␀session␀chunk           recency, user scope    (empty value)
 *   s␀user␀session␀kind␀ts␀chunk           recency, session scope (empty value)
 *   q␀user␀kind␀ts␀session␀chunk           pending: the chunk's postings are not written yet (empty value)
 *   k␀user␀kind␀keyword␀ts␀session␀chunk   keyword posting        (empty value)
 *
 * A commit writes a new or changed chunk's recency keys and a pending key only (three keys, whatever its keyword
 * count): a chunk's postings and counters are written later, for many chunks of a user at once, by the posting
 * merge (posting-merge.ts), which replaces pending keys by postings in one batch. A live chunk is therefore either
 * pending or posted, never both; readers of postings add the pending ones, which are few (the merge runs once a user has `postingMergeAt` of them, default 128, below the recall window of 256) and almost always among the newest.
 *
 * `ts` is the chunk's creation time as 14 hex digits (ms, clamped to [0, 2^53)), so key order is time order and a
 * bounded reverse scan returns the newest first. Keywords are indexed normalized (`normalizeKeyword`), each once
 * per chunk. Only live directory entries are indexed, and an entry's index keys are a pure function of
 * (user, session, chunk, kind, createdAt, keywords): relocation and GC, which move bodies, change none of them.
 *
 * The index is maintained by `Txn.commit`, which compares every directory entry it writes with the committed one
 * (`indexDelta`) and stages the difference in the same LevelDB batch.
 * @internal
 */

/** What of a directory entry the index depends on. */
export interface IndexedChunk {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly kind: ChunkKind;
  readonly createdAt: number;
  readonly keywords: readonly string[];
}

/** One chunk found through the index, with its creation time as keyed. */
export interface IndexHit {
  readonly sessionId: string;
  readonly chunkId: string;
  /** `ts␀session␀chunk`: the key suffix every index list shares, in key (= time) order. */
  readonly tail: string;
}

const TS_DIGITS = 14;
const MAX_TS = 2 ** 53 - 1;

/** Lower-cased, control characters removed (they would collide with key separators). Empty means not indexed. */
export function normalizeKeyword(k: string): string {
  // Most keywords are already printable lower-case ASCII, which this leaves as is: checked by a plain loop, which is
  // several times cheaper than `toLowerCase` and a regular-expression replace per keyword (a merge normalizes ~8,000).
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    if (c < 0x20 || c > 0x7f || (c >= 0x41 && c <= 0x5a)) {
      // eslint-disable-next-line no-control-regex
      return k.toLowerCase().replace(/[\u0000-\u001f]/g, '');
    }
  }
  return k;
}

/** Distinct normalized keywords, in first-seen order. */
export function indexKeywords(keywords: readonly string[]): string[] {
  const out = new Set<string>();
  for (const k of keywords) {
    const n = normalizeKeyword(k);
    if (n !== '') out.add(n);
  }
  return [...out];
}

export function tsKey(createdAt: number): string {
  const t = Number.isFinite(createdAt) ? Math.min(MAX_TS, Math.max(0, Math.floor(createdAt))) : 0;
  return t.toString(16).padStart(TS_DIGITS, '0');
}

function tailOf(c: IndexedChunk): string {
  return tsKey(c.createdAt) + SEP + c.sessionId + SEP + c.chunkId;
}

/** The chunk's two recency keys (user and session lists). */
export function recencyKeys(c: IndexedChunk): string[] {
  return ['r' + SEP + c.userId + SEP + c.kind + SEP + tailOf(c), 's' + SEP + c.userId + SEP + c.sessionId + SEP + c.kind + SEP + tsKey(c.createdAt) + SEP + c.chunkId];
}

/** The key that marks the chunk's postings as not yet written. */
export function pendingKey(c: IndexedChunk): string {
  return 'q' + SEP + c.userId + SEP + c.kind + SEP + tailOf(c);
}

/** The chunk's keyword postings (one per distinct normalized keyword; `kws`: its `indexKeywords`, when known). */
export function postingKeys(c: IndexedChunk, kws: readonly string[] = indexKeywords(c.keywords)): string[] {
  const tail = tailOf(c);
  const head = 'k' + SEP + c.userId + SEP + c.kind + SEP;
  return kws.map((k) => head + k + SEP + tail);
}

/** Every key with an empty value the chunk has in the index: recency keys, then its pending key or its postings. */
export function entryKeys(c: IndexedChunk, posted: boolean): string[] {
  return posted ? [...recencyKeys(c), ...postingKeys(c)] : [...recencyKeys(c), pendingKey(c)];
}

/** Parses a pending key's `user, kind, tail` (null: not a pending key). */
export function parsePendingKey(key: string): { userId: string; kind: string; tail: string; sessionId: string; chunkId: string } | null {
  const parts = key.split(SEP);
  if (parts.length !== 6 || parts[0] !== 'q') return null;
  return { userId: parts[1]!, kind: parts[2]!, tail: parts.slice(3).join(SEP), sessionId: parts[4]!, chunkId: parts[5]! };
}

export function indexedChunk(userId: string, sessionId: string, chunkId: string, e: DirEntry | null): IndexedChunk | null {
  if (e === null || e.state !== 'live') return null;
  return { userId, sessionId, chunkId, kind: e.kind, createdAt: e.createdAt, keywords: e.keywords };
}

export function sameIndexed(a: IndexedChunk | null, b: IndexedChunk | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind !== b.kind || tsKey(a.createdAt) !== tsKey(b.createdAt)) return false;
  const ka = indexKeywords(a.keywords);
  const kb = indexKeywords(b.keywords);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/** The index changes one transaction stages: empty-valued keys to put and delete. */
export class IndexDelta {
  readonly puts = new Set<string>();
  readonly dels = new Set<string>();
  /** user → change in its number of pending chunks. */
  readonly pending = new Map<string, number>();

  /**
   * Records the change of one chunk from `before` to `after` (null: not indexed, i.e. absent or deleted).
   * `beforePosted` says whether `before` had its postings written (else it had a pending key). A chunk that
   * changes is indexed anew as pending.
   */
  change(before: IndexedChunk | null, beforePosted: boolean, after: IndexedChunk | null): void {
    if (sameIndexed(before, after)) return;
    if (before !== null) {
      for (const k of entryKeys(before, beforePosted)) this.#del(k);
      if (!beforePosted) this.#bumpPending(before.userId, -1);
    }
    if (after !== null) {
      for (const k of entryKeys(after, false)) this.#put(k);
      this.#bumpPending(after.userId, +1);
    }
  }

  #put(k: string): void {
    this.dels.delete(k);
    this.puts.add(k);
  }

  #del(k: string): void {
    this.puts.delete(k);
    this.dels.add(k);
  }

  #bumpPending(userId: string, by: number): void {
    this.pending.set(userId, (this.pending.get(userId) ?? 0) + by);
  }

  get empty(): boolean {
    return this.puts.size === 0 && this.dels.size === 0;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type IndexOp = { type: 'put'; sublevel: Family; key: string; value: Buffer } | { type: 'del'; sublevel: Family; key: string };

/** A delta as batch operations (its keys, all empty-valued). */
export function indexOps(family: Family, delta: IndexDelta): IndexOp[] {
  const ops: IndexOp[] = [];
  // A key both deleted and put by one delta was removed from the other set by `change`, so order does not matter.
  for (const key of delta.dels) ops.push({ type: 'del', sublevel: family, key });
  for (const key of delta.puts) ops.push({ type: 'put', sublevel: family, key, value: INDEX_PRESENT });
  return ops;
}

/**
 * The posting merge's batch: pending chunks `chunks` get their postings and lose their pending keys. Built directly,
 * without an `IndexDelta`: every key is distinct (a chunk's keywords are indexed once each, and every key ends with
 * its chunk's tail), so there is nothing to reconcile, and hashing ~8,000 fresh key strings into sets was a large
 * part of a merge. Same operations as a delta of `post`s would give: the deletions, then the postings.
 */
export function postingOps(family: Family, chunks: readonly IndexedChunk[]): IndexOp[] {
  const ops: IndexOp[] = [];
  for (const c of chunks) ops.push({ type: 'del', sublevel: family, key: pendingKey(c) });
  for (const c of chunks) for (const key of postingKeys(c)) ops.push({ type: 'put', sublevel: family, key, value: INDEX_PRESENT });
  return ops;
}

/**
 * The hit a `ts␀session␀chunk` tail names, built as one object literal of fixed shape: a gathering parses a thousand
 * or more keys, and spreading a parsed pair into each hit cost more than the rest of the parse.
 */
function hitOf(tail: string): IndexHit {
  const a = tail.indexOf(SEP);
  const b = tail.lastIndexOf(SEP);
  return { sessionId: tail.slice(a + 1, b), chunkId: tail.slice(b + 1), tail };
}

/** A key range of the candidate index, read whole. */
export interface IndexRange {
  readonly gte: string;
  readonly lt: string;
  readonly reverse: boolean;
  readonly limit: number;
}

/**
 * Reads a range's keys whole (`keys().all()`: in batches, not one promise per key), from the gathering's snapshot or
 * from what an earlier gathering read at the same version (candidate-read-memo.ts). The array must not be mutated.
 */
export type IndexKeys = (range: IndexRange) => Promise<readonly string[]>;

/**
 * Bytes of keys one batch of a range read may carry (classic-level's `highWaterMarkBytes`; other backends ignore it).
 * The default, 16 KiB, holds about 200 index keys, so a window or posting list of 256 keys took two round trips
 * through the thread pool; room for the batch size abstract-level asks for (at most 1,000 keys) at 256 bytes a key
 * makes it one. Held only while the batch is turned into strings.
 */
const KEY_BYTES_PER_BATCH_KEY = 256;

/** `IndexKeys` straight from `family` in `snapshot`. */
export function snapshotKeys(family: Family, snapshot: AbstractSnapshot): IndexKeys {
  return (r) => {
    const options: AbstractKeyIteratorOptions<string> & { highWaterMarkBytes: number } = {
      gte: r.gte,
      lt: r.lt,
      reverse: r.reverse,
      limit: r.limit,
      snapshot,
      highWaterMarkBytes: Math.max(1, Math.min(r.limit, 1000)) * KEY_BYTES_PER_BATCH_KEY,
    };
    return family.keys(options).all();
  };
}

/** Newest first by the key suffix (time, then ids). */
const newerTail = (a: IndexHit, b: IndexHit): number => (a.tail < b.tail ? 1 : a.tail > b.tail ? -1 : 0);

/** The newest chunks of a scope (`newestChunks`). */
export interface NewestChunks {
  /** Newest first. */
  readonly hits: IndexHit[];
  /**
   * The kinds asked for that the scope has at least one live chunk of, in the order asked. A kind missing here has
   * no postings in the scope either (only live chunks are indexed, each with its recency keys, in one batch), so
   * nothing older is looked for under it.
   */
  readonly kinds: ChunkKind[];
}

/**
 * The `n` newest live chunks of the scope (session null: all of the user's sessions) among `kinds`, newest first:
 * one bounded reverse scan per kind.
 */
export async function newestChunks(keys: IndexKeys, userId: string, sessionId: string | null, kinds: readonly ChunkKind[], n: number): Promise<NewestChunks> {
  const hits: IndexHit[] = [];
  const present: ChunkKind[] = [];
  if (n <= 0) return { hits, kinds: [...kinds] };
  // One bounded scan per kind, all at once; each read whole (`all()`: keys in batches, not one promise per key).
  const scans = kinds.map((kind) => {
    const prefix = sessionId === null ? ['r', userId, kind] : ['s', userId, sessionId, kind];
    const head = prefix.join(SEP) + SEP;
    return keys({ gte: head, lt: afterPrefix(...prefix), reverse: true, limit: n }).then((got) => ({ kind, head, keys: got }));
  });
  for (const scan of await Promise.all(scans)) {
    const head = scan.head;
    if (scan.keys.length > 0) present.push(scan.kind);
    for (const key of scan.keys) {
      const rest = key.slice(head.length);
      if (sessionId === null) hits.push(hitOf(rest));
      else {
        const i = rest.indexOf(SEP);
        const chunkId = rest.slice(i + 1);
        hits.push({ sessionId, chunkId, tail: rest.slice(0, i) + SEP + sessionId + SEP + chunkId });
      }
    }
  }
  hits.sort(newerTail);
  hits.length = Math.min(hits.length, n);
  return { hits, kinds: present };
}

/**
 * A user's pending chunks among `kinds` (in key order), at most `limit`. `most`: at most this many pending chunks
 * exist in `snapshot` (PendingBound). The posting merge deletes pending keys as it posts them, so the older part
 * of a user's pending list is a run of deletion markers as long as the history until LevelDB compacts them away:
 * a scan from the start walks them all. Given the bound, the list is read from its newest end and stops after
 * `most` keys, where pending chunks almost always are (none at all: nothing is read).
 */
export async function pendingChunks(keys: IndexKeys, userId: string, kinds: readonly ChunkKind[], most?: number, limit = 4096): Promise<IndexHit[]> {
  const hits: IndexHit[] = [];
  if (most === 0) return hits;
  const fromNewest = most !== undefined && most <= limit;
  const scans = kinds.map((kind) => {
    const head = 'q' + SEP + userId + SEP + kind + SEP;
    return keys({ gte: head, lt: afterPrefix('q', userId, kind), limit: fromNewest ? most : limit, reverse: fromNewest }).then((got) => ({
      head,
      keys: fromNewest ? [...got].reverse() : got,
    }));
  });
  for (const scan of await Promise.all(scans)) {
    const head = scan.head;
    for (const key of scan.keys) {
      hits.push(hitOf(key.slice(head.length)));
    }
  }
  return hits;
}

/**
 * Older matches: for each keyword and kind, the newest postings strictly older than `before` (a tail; null: no
 * bound), at most `perKeyword` of them (scanning at most 8× that when filtering one session). Returns each chunk
 * found with the number of query keywords it was found under.
 */
export async function keywordMatches(
  keys: IndexKeys,
  family: Family,
  userId: string,
  sessionId: string | null,
  kinds: readonly ChunkKind[],
  keywords: readonly string[],
  perKeyword: number,
  before: string | null,
  snapshot: AbstractSnapshot,
  parsed?: ParsedPostings,
): Promise<{ found: Map<string, { hit: IndexHit; score: number }>; scanned: number }> {
  const found = new Map<string, { hit: IndexHit; score: number }>();
  let scanned = 0;
  if (perKeyword <= 0) return { found, scanned };
  // Every (keyword, kind) list is scanned at once (their reads overlap on the thread pool and the disk), then taken
  // in keyword order as one after another would. User scope reads each list whole (`all()`: `perKeyword` keys, in
  // batches); session scope may stop early, so it steps through the keys.
  const scans: Promise<readonly PostingHit[]>[] = [];
  for (const keyword of keywords) {
    for (const kind of kinds) {
      const prefix = ['k', userId, kind, keyword];
      const head = prefix.join(SEP) + SEP;
      const lt = before === null ? afterPrefix(...prefix) : head + before;
      if (sessionId === null) {
        const range = { gte: head, lt, reverse: true, limit: perKeyword };
        const read = async (): Promise<readonly PostingHit[]> => postingHits(head, await keys(range));
        scans.push(parsed === undefined ? read() : parsed(range, read));
      } else scans.push(sessionPostings(family, head, lt, sessionId, perKeyword, snapshot).then((got) => postingHits(head, got.keys)));
    }
  }
  for (const hits of await Promise.all(scans)) {
    for (const { id, hit } of hits) {
      scanned++;
      if (sessionId !== null && hit.sessionId !== sessionId) continue;
      const f = found.get(id);
      if (f === undefined) found.set(id, { hit, score: 1 });
      else f.score++;
    }
  }
  return { found, scanned };
}

/** A posting parsed: its chunk's `session SEP chunk` id and hit. */
export interface PostingHit {
  readonly id: string;
  readonly hit: IndexHit;
}

/**
 * Keeps what a posting list's keys parse to (candidate-read-memo.ts files it with the keys' version); `read` reads
 * and parses the range. The list returned must not be mutated.
 */
export type ParsedPostings = (range: IndexRange, read: () => Promise<readonly PostingHit[]>) => Promise<readonly PostingHit[]>;

function postingHits(head: string, keys: readonly string[]): PostingHit[] {
  return keys.map((key) => {
    const tail = key.slice(head.length);
    // The id is the tail after its time: `session␀chunk`.
    return { id: tail.slice(tail.indexOf(SEP) + 1), hit: hitOf(tail) };
  });
}

/**
 * The newest posting keys of one list in [head, lt) up to the `perKeyword`-th of `sessionId`, scanning at most 8×
 * `perKeyword` keys: every key read, in order (the caller counts them all and keeps the session's).
 */
async function sessionPostings(
  family: Family,
  head: string,
  lt: string,
  sessionId: string,
  perKeyword: number,
  snapshot: AbstractSnapshot,
): Promise<{ head: string; keys: string[] }> {
  const keys: string[] = [];
  let taken = 0;
  for await (const key of family.keys({ gte: head, lt, reverse: true, limit: perKeyword * 8, snapshot })) {
    keys.push(key);
    if (hitOf(key.slice(head.length)).sessionId === sessionId && ++taken >= perKeyword) break;
  }
  return { head, keys };
}

/** Keys of `family` in [gte, lt) in `snapshot`, counted without holding them (O(keys) time, O(1) memory). */
async function countKeys(family: Family, gte: string, lt: string, snapshot: AbstractSnapshot): Promise<number> {
  let n = 0;
  for await (const _ of family.keys({ gte, lt, snapshot })) n++;
  return n;
}

/**
 * The statistics over a user's posted chunks of `kinds`, counted from the index's keys: posted chunks are recency
 * keys minus pending keys, keyword totals and document frequencies are postings. Database format 5 keeps no
 * counters (maintaining them cost most of the posting merge, and recall does not read them: SELECT computes its own),
 * so this is work O(the user's postings); it serves diagnostics, never the recall path.
 */
export async function keywordStats(
  family: Family,
  userId: string,
  kinds: readonly ChunkKind[],
  keywords: readonly string[],
  snapshot: AbstractSnapshot,
): Promise<KeywordStats> {
  let docs = 0;
  let totalKeywords = 0;
  const df = new Map<string, number>(keywords.map((w) => [w, 0]));
  for (const kind of kinds) {
    docs += await countKeys(family, ['r', userId, kind].join(SEP) + SEP, afterPrefix('r', userId, kind), snapshot);
    docs -= await countKeys(family, ['q', userId, kind].join(SEP) + SEP, afterPrefix('q', userId, kind), snapshot);
    totalKeywords += await countKeys(family, ['k', userId, kind].join(SEP) + SEP, afterPrefix('k', userId, kind), snapshot);
    for (const w of keywords) {
      df.set(w, df.get(w)! + (await countKeys(family, ['k', userId, kind, w].join(SEP) + SEP, afterPrefix('k', userId, kind, w), snapshot)));
    }
  }
  return { docs, totalKeywords, df };
}

/** Key ranges of everything the index holds for one user (purge). */
export function userIndexRanges(userId: string): { gte: string; lt: string }[] {
  return ['r', 's', 'q', 'k', 'f', 'n'].map((t) => ({ gte: t + SEP + userId + SEP, lt: afterPrefix(t, userId) }));
}

/**
 * The candidate index's part of a purge (`PurgeHook`): the directory deletions the purge stages already remove the
 * scope's index keys and adjust the counters in the same batch (`Txn.commit`); a user purge also deletes whatever
 * else is left under the user's prefixes. The ranges returned are compacted so no keyword of the scope stays in any
 * file. A session's keys are spread through its user's ranges, so those are compacted.
 */
export const candidateIndexPurgeHook: PurgeHook = {
  async stage(txn: Txn, scope: PurgeScope) {
    const family = txn.cf.candidates;
    let deleted = 0;
    const ranges: [string, string][] = [];
    for (const r of userIndexRanges(scope.userId)) {
      ranges.push([family.prefix + r.gte, family.prefix + r.lt]);
      if (scope.sessionId !== null) continue;
      for await (const key of family.keys(r)) {
        txn.raw({ type: 'del', sublevel: family, key });
        deleted++;
      }
    }
    return { deleted, ranges };
  },
};
