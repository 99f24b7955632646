import { AkashicError } from '../../errors.js';
import { encodeChunkRecord, type ChunkRecord } from '../../record/chunk-record.js';
import { isExpired, type DirEntry, type KeywordTermsDerivation } from '../../record/dir-entry.js';
import { encodeExpiryMark } from '../../record/engine-records.js';
import { userSlot, type SlotReadResult, type UserSlot } from '../read/block-reader.js';
import { LIMITS, fullRefs, type CheckedContent } from '../../api/chunk-input.js';
import { stageRestoredVersion, stageSuperseded } from './history.js';
import type { RestoredVersion, MutationResult } from '../../api/results.js';
import { entryOfRecord } from '../read/versioned-read.js';
import type { ChunkIdGenerator } from './chunk-id-generator.js';
import { dirKey, expiryKey } from '../kv/keys.js';
import { defaultTtlFor, type ResolvedStoreOptions } from '../../api/store-options.js';
import { checkRecord } from '../read/read-path.js';
import type { Txn } from '../txn/txn.js';

/** A chunk's expiry as a write gives it: an absolute time, a time to live from the commit, or null for never. */
export type Expiry = { readonly at: number } | { readonly ttlMs: number } | null;

/** One change inside an atomic write. All mutations of one write belong to one user. */
export type Mutation =
  | { readonly op: 'put'; readonly sessionId: string; readonly chunkId?: string; readonly createdAt?: number; readonly content: CheckedContent; readonly expiry?: Expiry }
  | {
      readonly op: 'update';
      readonly sessionId: string;
      readonly chunkId: string;
      readonly expectVersion?: number;
      readonly content: Partial<CheckedContent>;
      readonly expiry?: Expiry;
      /** The chunk whose write caused this update (reconciliation), kept in the ended version's history entry. */
      readonly supersededBy?: { readonly sessionId: string; readonly chunkId: string };
      /** Why (what matched), kept in the ended version's history entry. */
      readonly reason?: string;
    }
  | {
      readonly op: 'delete';
      readonly sessionId: string;
      readonly chunkId: string;
      readonly expectVersion?: number;
      readonly supersededBy?: { readonly sessionId: string; readonly chunkId: string };
      readonly reason?: string;
    }
  | { readonly op: 'restore'; readonly record: ChunkRecord }
  /** Superseded versions of one chunk (dump/load), oldest first, each of this chunk and of a distinct version. */
  | { readonly op: 'restoreHistory'; readonly sessionId: string; readonly chunkId: string; readonly versions: readonly RestoredVersion[] };

/** A hook that stages more in a write's transaction after its mutations (see `StoreCore.write`). */
export type WriteExtra = (txn: Txn) => void | Promise<void>;

/** What staging a mutation needs besides the transaction. REQUIRES: the write lock. */
export interface MutationScope {
  readonly options: ResolvedStoreOptions;
  readonly ids: ChunkIdGenerator;
  /**
   * Derives the matching terms stored with every live entry's keywords (null: entries are written without them and
   * readers derive them). One derivation for every write path, so an entry's terms never depend on how it was written.
   */
  readonly keywordTerms: KeywordTermsDerivation | null;
  /** Reads record bytes at slots in the committed state. */
  readCurrent(locs: readonly UserSlot[]): Promise<SlotReadResult>;
}

/** A directory entry without its attributes, vector and keyword terms (tombstones keep no content). */
export function withoutAttributes(e: DirEntry): DirEntry {
  const { attributes: _a, embedding: _e, keywordTerms: _t, ...rest } = e;
  return rest;
}

function expiryAt(e: Expiry, now: number): number | undefined {
  if (e === null) return undefined;
  return Math.ceil('at' in e ? e.at : now + e.ttlMs);
}

/** A record with its expiry set to `at` (absent when undefined). */
function withExpiry(r: ChunkRecord, at: number | undefined): ChunkRecord {
  const { expiresAt: _old, ...rest } = r;
  return at === undefined ? rest : { ...rest, expiresAt: at };
}

/**
 * Stages one write (the mutations of one user, then `extra`) in `txn`: decides what each mutation changes
 * (existence and version checks, the new record, invalidated slots, tombstones, expiry marks). Throws (leaving
 * `txn` to be rolled back) on a conflict, a missing chunk or a chunk named twice.
 */
export async function stageWrite(c: MutationScope, txn: Txn, userId: string, mutations: readonly Mutation[], extra: WriteExtra | undefined): Promise<MutationResult[]> {
  const results: MutationResult[] = [];
  const seen = new Set<string>();
  for (const m of mutations) {
    const sessionId = m.op === 'restore' ? m.record.sessionId : m.sessionId;
    const chunkId = m.op === 'restore' ? m.record.chunkId : m.op === 'put' ? (m.chunkId ?? (await c.ids.next(userId, sessionId, txn.now))) : m.chunkId;
    const key = dirKey(userId, sessionId, chunkId);
    if (seen.has(key)) throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `chunk ${sessionId}/${chunkId} appears twice in one write`);
    seen.add(key);
    results.push(await applyMutation(c, txn, userId, sessionId, chunkId, key, m));
  }
  await retireSuperseded(c, txn, userId, mutations, results, seen);
  if (extra !== undefined) await extra(txn);
  return results;
}

/**
 * Supersession: a chunk that a put or an update of this write names in `supersedes` is retired as a delete would
 * retire it — a tombstone naming the superseding chunk, its last version kept by history (cause 'delete',
 * `supersededBy` set) — in the same transaction. A chunk this write touches itself, or one that is already gone,
 * is left alone (a reference to it is kept, not an error). Restores never retire: a dump carries its tombstones.
 * Retirements add no result (the write's results answer its own mutations).
 */
async function retireSuperseded(c: MutationScope, txn: Txn, userId: string, mutations: readonly Mutation[], results: readonly MutationResult[], seen: Set<string>): Promise<void> {
  for (let i = 0; i < mutations.length; i++) {
    const m = mutations[i]!;
    if (m.op !== 'put' && m.op !== 'update') continue;
    const named = m.content.supersedes;
    if (named === undefined || named.length === 0) continue;
    const by = { sessionId: results[i]!.sessionId, chunkId: results[i]!.chunkId };
    for (const r of named) {
      const key = dirKey(userId, r.sessionId, r.chunkId);
      if (seen.has(key)) continue;
      seen.add(key);
      const e = await txn.dirEntry(key);
      if (e === null || e.state !== 'live' || isExpired(e, txn.now)) continue;
      await applyMutation(c, txn, userId, r.sessionId, r.chunkId, key, { op: 'delete', sessionId: r.sessionId, chunkId: r.chunkId, supersededBy: by });
    }
  }
}

async function applyMutation(c: MutationScope, txn: Txn, userId: string, sessionId: string, chunkId: string, key: string, m: Mutation): Promise<MutationResult> {
  // An id this engine generated is past every key of its namespace: nothing to read.
  if (m.op === 'put' && m.chunkId === undefined) txn.assumeAbsent(key);
  else c.ids.note(userId, sessionId, chunkId);
  const existing = await txn.dirEntry(key);
  // An expired chunk is gone for every caller, even before the sweep deletes it.
  const live = existing !== null && existing.state === 'live' && !isExpired(existing, txn.now) ? existing : null;
  const check = (): DirEntry => {
    if (live === null) throw new AkashicError('AKASHIC_NOT_FOUND', `chunk ${sessionId}/${chunkId} of user ${JSON.stringify(userId)} does not exist`);
    if ('expectVersion' in m && m.expectVersion !== undefined && m.expectVersion !== live.version) {
      throw new AkashicError('AKASHIC_CONFLICT', `chunk ${sessionId}/${chunkId} is at version ${live.version}, expected ${m.expectVersion}`);
    }
    return live;
  };
  switch (m.op) {
    case 'put': {
      if (existing !== null) throw new AkashicError('AKASHIC_CONFLICT', `chunk ${sessionId}/${chunkId} already exists`);
      const at = m.createdAt ?? txn.now;
      const dflt = defaultTtlFor(c.options, { userId, sessionId, agentId: m.content.agentId, runId: m.content.runId });
      const expiry = m.expiry !== undefined ? m.expiry : dflt > 0 ? { ttlMs: dflt } : null;
      const content = { ...m.content, supersedes: fullRefs(userId, m.content.supersedes) };
      const record = withExpiry({ userId, sessionId, chunkId, version: 1, createdAt: at, updatedAt: at, ...content }, expiryAt(expiry, txn.now));
      stageRecord(c, txn, key, record, true);
      return { op: 'put', sessionId, chunkId, version: 1 };
    }
    case 'update': {
      const cur = check();
      if (cur.version >= LIMITS.version) {
        throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `chunk ${sessionId}/${chunkId} is at the highest version ${LIMITS.version}; it cannot be updated`);
      }
      const { record: old, bytes: oldBytes } = await readRecord(c, cur, userId, sessionId, chunkId);
      await txn.invalidate(cur.location!, cur.recordBytes);
      unindexExpiry(txn, userId, sessionId, chunkId, cur);
      await stageSuperseded(txn, c.options, { userId, sessionId, chunkId }, cur, oldBytes, 'update', m.supersededBy ?? null, m.reason);
      const { supersedes: given, ...rest } = m.content;
      const next: ChunkRecord = {
        ...old,
        ...rest,
        ...(given === undefined ? {} : { supersedes: fullRefs(userId, given) }),
        version: cur.version + 1,
        updatedAt: Math.max(txn.now, old.updatedAt),
      } as ChunkRecord;
      const record = m.expiry === undefined ? next : withExpiry(next, expiryAt(m.expiry, txn.now));
      stageRecord(c, txn, key, record, true);
      return { op: 'update', sessionId, chunkId, version: record.version };
    }
    case 'delete': {
      const cur = check();
      if (c.options.historyVersions > 0) {
        // Deleting a chunk whose body is damaged must stay possible (it is how a user clears the damage); history
        // then keeps no version of it, because there is no readable one to keep.
        const read = await readRecord(c, cur, userId, sessionId, chunkId).catch((err: unknown) => {
          if (err instanceof AkashicError && err.code === 'AKASHIC_CORRUPTION') return null;
          throw err;
        });
        if (read !== null) await stageSuperseded(txn, c.options, { userId, sessionId, chunkId }, cur, read.bytes, 'delete', m.supersededBy ?? null, m.reason);
      }
      await txn.invalidate(cur.location!, cur.recordBytes);
      unindexExpiry(txn, userId, sessionId, chunkId, cur);
      // A tombstone keeps no content: its keywords (words of the deleted text) go with the record (and, while
      // history keeps versions, into the history entry, which purge and retention remove).
      txn.putDir(key, { ...withoutAttributes(cur), state: 'deleted', location: null, keywords: [], supersededBy: m.supersededBy ?? null, deletedAt: txn.now });
      return { op: 'delete', sessionId, chunkId, version: cur.version };
    }
    case 'restoreHistory': {
      const newest = m.versions.at(-1)!;
      // Only the newest `history.versions` are kept, as the write that ended them would have kept them.
      const kept = m.versions.slice(Math.max(0, m.versions.length - c.options.historyVersions));
      let staged = 0;
      for (const v of kept) if (await stageRestoredVersion(txn, c.options, v)) staged++;
      // A chunk whose history ends with its deletion and that has no directory entry was deleted: its tombstone
      // comes back with its history (so history() and as-of reads find it), as the delete wrote it.
      if (existing === null && newest.cause === 'delete' && c.options.historyVersions > 0) {
        const base = withoutAttributes(entryOfRecord(newest.record, encodeChunkRecord(newest.record).length));
        txn.putDir(key, { ...base, state: 'deleted', keywords: [], supersededBy: newest.supersededBy, deletedAt: newest.validUntil });
        staged++;
      }
      return { op: 'restoreHistory', sessionId, chunkId, version: newest.record.version, ...(staged === 0 ? { skipped: true } : {}) };
    }
    case 'restore': {
      if (existing !== null && existing.version >= m.record.version) {
        return { op: 'restore', sessionId, chunkId, version: existing.version, skipped: true };
      }
      if (existing !== null && existing.state === 'live') {
        await txn.invalidate(existing.location!, existing.recordBytes);
        unindexExpiry(txn, userId, sessionId, chunkId, existing);
      }
      stageRecord(c, txn, key, { ...m.record, userId, supersedes: m.record.supersedes.map((r) => ({ ...r, userId })) }, true);
      return { op: 'restore', sessionId, chunkId, version: m.record.version };
    }
  }
}

function unindexExpiry(txn: Txn, userId: string, sessionId: string, chunkId: string, e: DirEntry): void {
  if (e.expiresAt !== undefined) txn.raw({ type: 'del', sublevel: txn.cf.expiry, key: expiryKey(e.expiresAt, userId, sessionId, chunkId) });
}

function stageRecord(c: MutationScope, txn: Txn, key: string, record: ChunkRecord, ingested: boolean): void {
  const bytes = encodeChunkRecord(record);
  if (record.expiresAt !== undefined) {
    txn.raw({ type: 'put', sublevel: txn.cf.expiry, key: expiryKey(record.expiresAt, record.userId, record.sessionId, record.chunkId), value: encodeExpiryMark() });
  }
  if (ingested) txn.acct.logicalBytesIngested += bytes.length;
  txn.acct.chunksWritten++;
  txn.append(record.userId, record.sessionId, bytes, key, {
    state: 'live',
    version: record.version,
    recordBytes: bytes.length,
    tokenCount: record.tokenCount,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    kind: record.kind,
    keywords: record.keywords,
    supersededBy: null,
    deletedAt: null,
    ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }),
    attributes: record.attributes,
    ...(record.embedding === undefined || record.embedding === null ? {} : { embedding: record.embedding }),
    ...(record.agentId === undefined ? {} : { agentId: record.agentId }),
    ...(record.runId === undefined ? {} : { runId: record.runId }),
    ...(c.keywordTerms === null ? {} : { keywordTerms: { version: c.keywordTerms.version, terms: c.keywordTerms.derive(record.keywords) } }),
  });
}

async function readRecord(c: MutationScope, entry: DirEntry, userId: string, sessionId: string, chunkId: string): Promise<{ record: ChunkRecord; bytes: Uint8Array }> {
  const { records } = await c.readCurrent([userSlot(userId, entry.location!)]);
  return { record: checkRecord(records[0]!, entry, userId, sessionId, chunkId), bytes: records[0]! };
}
