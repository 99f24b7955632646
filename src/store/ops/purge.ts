import { decodeFrame } from '../../block/frame-codec.js';
import { decodeBlockInfo, type BlockInfo } from '../../record/block-info.js';
import { decodeChunkRecord } from '../../record/chunk-record.js';
import { decodeDirEntry, sameLocation, type DirEntry } from '../../record/dir-entry.js';
import { decodeOpenBlockRef } from '../../record/engine-records.js';
import type { Family } from '../kv/column-families.js';
import { SEP, afterPrefix, dirKey, frameKey, expiryKey, parseDirKey, prefixRange } from '../kv/keys.js';
import type { StoreCore } from '../store-core.js';
import type { Txn } from '../txn/txn.js';
import type { PurgeReport } from '../../api/reports.js';

/** What `purge` erases: every trace of one user, or of one session of a user. */
export interface PurgeScope {
  readonly userId: string;
  /** Null: the whole user. */
  readonly sessionId: string | null;
}

/**
 * A family that indexes chunks outside the directory (a candidate or expiry index) erases its entries of the
 * scope inside the purge's transaction and names the key ranges (root keys, sublevel prefix included) it touched.
 */
export interface PurgeHook {
  stage(txn: Txn, scope: PurgeScope): Promise<{ deleted: number; ranges: [string, string][] }>;
}

/** A family's range as root-database keys (sublevel prefix included), for compactRange. */
function rootRange(f: Family, gte: string, lt: string): [string, string] {
  return [f.prefix + gte, f.prefix + lt];
}

async function deleteRange(txn: Txn, f: Family, gte: string, lt: string, keep?: (key: string) => boolean): Promise<number> {
  let n = 0;
  for await (const k of f.keys({ gte, lt })) {
    if (keep?.(k) === true) continue;
    txn.raw({ type: 'del', sublevel: f, key: k });
    n++;
  }
  return n;
}

interface Staged {
  chunks: number;
  tombstones: number;
  blocksReleased: number;
  blocksRewritten: number;
  recordsMoved: number;
  blockInfosDeleted: number;
  coAccessEntries: number;
  activeTurns: number;
  openBlockRefs: number;
  indexEntries: number;
  ranges: [string, string][];
}

/**
 * Stages the erasure of a scope in `txn` (decide and stage; the caller commits). Requires: the write lock.
 *
 * - directory: every entry of the scope, live or tombstone, is deleted (no tombstone is left behind);
 * - blocks: a user purge releases every block of the user and deletes every block info it ever had; a session
 *   purge releases the session's own blocks and rewrites each shared (cross-session) block holding any record of
 *   the session, live or dead: the other sessions' live records move to fresh sealed blocks, then the block goes;
 * - co-access counts (per chunk and per pair), active turns and open-block refs of the scope are deleted.
 *
 * Memory: O(entries in scope + blocks of the user) keys; the block scan reads one block's frames at a time.
 */
async function stagePurge(core: StoreCore, txn: Txn, scope: PurgeScope, hooks: readonly PurgeHook[]): Promise<Staged> {
  const cf = core.cf;
  const { userId, sessionId } = scope;
  const out: Staged = {
    chunks: 0,
    tombstones: 0,
    blocksReleased: 0,
    blocksRewritten: 0,
    recordsMoved: 0,
    blockInfosDeleted: 0,
    coAccessEntries: 0,
    activeTurns: 0,
    openBlockRefs: 0,
    indexEntries: 0,
    ranges: [],
  };
  const scopeParts = sessionId === null ? [userId] : [userId, sessionId];
  const inScope = (s: string): boolean => sessionId === null || s === sessionId;

  // Directory.
  const dirRange = prefixRange(...scopeParts);
  out.ranges.push(rootRange(cf.dir, dirRange.gte, dirRange.lt));
  let expiring = false;
  for await (const [k, v] of cf.dir.iterator(dirRange)) {
    const e = decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`);
    if (e.expiresAt !== undefined) {
      const p = parseDirKey(k)!;
      const ek = expiryKey(e.expiresAt, p.userId, p.sessionId, p.chunkId);
      txn.raw({ type: 'del', sublevel: cf.expiry, key: ek });
      out.indexEntries++;
      expiring = true;
    }
    if (e.state === 'live') {
      await txn.invalidate(e.location!, e.recordBytes);
      out.chunks++;
    } else out.tombstones++;
    txn.deleteDir(k);
  }

  if (expiring) {
    const userExpiry = prefixRange(userId);
    out.ranges.push(rootRange(cf.expiry, userExpiry.gte, userExpiry.lt));
  }

  // Blocks: every block the user ever had (released ones too: their frames may still sit in old LevelDB files).
  // Their infos are the user's own key range (database format 6).
  const retired = new Set<number>();
  let minBlock = Number.POSITIVE_INFINITY;
  let maxBlock = -1;
  const userBlocks = prefixRange(userId);
  for await (const [k, v] of cf.blockInfo.iterator(userBlocks)) {
    const info = decodeBlockInfo(v, `block info ${JSON.stringify(k)}`);
    const id = info.blockId;
    minBlock = Math.min(minBlock, id);
    maxBlock = Math.max(maxBlock, id);
    if (sessionId === null) {
      if (info.state !== 'released') out.blocksReleased++;
      await txn.retire(id, true);
      retired.add(id);
      out.blockInfosDeleted++;
      continue;
    }
    if (info.sessionId === sessionId) {
      if (info.state !== 'released') out.blocksReleased++;
      await txn.retire(id, true);
      retired.add(id);
      out.blockInfosDeleted++;
    } else if (info.sessionId === '' && info.state !== 'released') {
      const moved = await rewriteShared(core, txn, info, sessionId);
      if (moved !== null) {
        out.blocksReleased++;
        out.blocksRewritten++;
        out.recordsMoved += moved;
        retired.add(id);
      }
    }
  }
  if (maxBlock >= 0) {
    const frameRange = core.frames.keyRange(userId, minBlock, maxBlock);
    if (frameRange !== null) out.ranges.push(frameRange);
    out.ranges.push(rootRange(cf.blockInfo, userBlocks.gte, userBlocks.lt));
  }
  // The user's accounting record goes with a whole-user purge (its counters leave the totals with it).
  if (sessionId === null) txn.dropAccounting();

  // Open-block refs: `open␀user` (cross-session) and `open␀user␀…` (per session, relocation lanes).
  const refRange = { gte: 'open' + SEP + userId, lt: afterPrefix('open', userId) };
  out.ranges.push(rootRange(cf.alloc, refRange.gte, refRange.lt));
  for await (const [k, v] of cf.alloc.iterator(refRange)) {
    const rest = k.slice(refRange.gte.length);
    if (rest !== '' && !rest.startsWith(SEP)) continue; // another user whose id starts with this one
    const ownSession = rest === '' ? null : rest.slice(1).split(SEP)[0]!;
    const drop = sessionId === null || (ownSession !== null && ownSession === sessionId) || retired.has(decodeOpenBlockRef(v, `open block ref ${JSON.stringify(k)}`));
    if (drop) {
      txn.raw({ type: 'del', sublevel: cf.alloc, key: k });
      out.openBlockRefs++;
    }
  }

  // Co-access: per-chunk counts `a␀user␀session␀ulid`, pairs `p␀user␀sA␀ulidA␀sB␀ulidB`.
  const acc = prefixRange('a', ...scopeParts);
  out.ranges.push(rootRange(cf.coaccess, acc.gte, acc.lt));
  out.coAccessEntries += await deleteRange(txn, cf.coaccess, acc.gte, acc.lt);
  const pairs = prefixRange('p', userId);
  out.ranges.push(rootRange(cf.coaccess, pairs.gte, pairs.lt));
  out.coAccessEntries += await deleteRange(txn, cf.coaccess, pairs.gte, pairs.lt, (k) => {
    const parts = k.slice(pairs.gte.length).split(SEP);
    return !(inScope(parts[0] ?? '') || inScope(parts[2] ?? ''));
  });
  // Counts still buffered in memory (co-access-buffer.ts) never reach the disk: an access key's ref parts are
  // [session, chunk], a pair's [sessionA, chunkA, sessionB, chunkB].
  out.coAccessEntries += core.coAccessBuffer.discard(userId, (parts) => inScope(parts[0] ?? '') || (parts.length > 2 && inScope(parts[2] ?? '')));

  // Active turns (MemAttention): `user␀session␀seq`.
  const active = prefixRange(...scopeParts);
  out.ranges.push(rootRange(cf.active, active.gte, active.lt));
  out.activeTurns = await deleteRange(txn, cf.active, active.gte, active.lt);

  for (const h of hooks) {
    const r = await h.stage(txn, scope);
    out.indexEntries += r.deleted;
    out.ranges.push(...r.ranges);
  }
  return out;
}

/**
 * Rewrites a shared block without the records of `sessionId`: returns the number of other sessions' live records
 * moved to fresh blocks, or null when the block holds no record of the session (left alone).
 */
async function rewriteShared(core: StoreCore, txn: Txn, info: BlockInfo, sessionId: string): Promise<number | null> {
  const kept: { bytes: Buffer; key: string; entry: DirEntry; sessionId: string }[] = [];
  let touched = false;
  for (let f = 0; f < info.frameSlots.length; f++) {
    const k = frameKey(info.blockId, f);
    const [v] = await core.frames.getMany([{ userId: info.userId, blockId: info.blockId, frame: f }]);
    if (v === undefined) continue;
    const frame = await decodeFrame(v, `frame ${k}`);
    const recs = frame.records.map((bytes, slot) => ({ bytes, slot, r: decodeChunkRecord(bytes, `record ${k}/${slot}`) }));
    const others = recs.filter((x) => x.r.sessionId !== sessionId);
    if (others.length !== recs.length) touched = true;
    const keys = others.map((x) => dirKey(x.r.userId, x.r.sessionId, x.r.chunkId));
    const entries = keys.length === 0 ? [] : await txn.dirEntries(keys);
    others.forEach((x, i) => {
      const e = entries[i];
      if (e == null || e.state !== 'live' || !sameLocation(e.location, { blockId: info.blockId, frame: f, slot: x.slot })) return;
      kept.push({ bytes: x.bytes, key: keys[i]!, entry: e, sessionId: x.r.sessionId });
    });
  }
  if (!touched) return null;
  for (const x of kept) await txn.invalidate(x.entry.location!, x.entry.recordBytes);
  if (kept.length > 0) {
    txn.stageFreshBlocks(
      info.userId,
      'gc',
      [kept.map((x) => ({ bytes: x.bytes, dirKey: x.key, entry: { ...x.entry }, sessionId: x.sessionId }))],
    );
  }
  await txn.retire(info.blockId, false);
  return kept.length;
}

/** The backend's compactRange, where it has one (classic-level). */
function compactor(core: StoreCore): ((start: string, end: string) => Promise<void>) | null {
  const db = core.db as unknown as { compactRange?: (start: string, end: string) => Promise<void>; supports?: { additionalMethods?: Record<string, unknown> } };
  return typeof db.compactRange === 'function' ? (s, e) => db.compactRange!(s, e) : null;
}

/**
 * Erases a scope in one atomic batch, then compacts the touched key ranges so the erased bytes leave every file
 * of the database directory: LevelDB's compactRange first flushes the memtable (the write-ahead log holding the
 * original writes is deleted with it), then merges every level overlapping the range down to the last, where a
 * deletion drops the value it shadows and itself; obsolete table files are deleted when it returns.
 *
 * Requires: no reader holds a snapshot or iterator older than the purge while it compacts (LevelDB keeps what an
 * open snapshot can see). The store's own reads are short; the caller's open iterators must be closed.
 */
export async function purgeScope(core: StoreCore, scope: PurgeScope, hooks: readonly PurgeHook[] = []): Promise<PurgeReport> {
  const staged = await core.transact(scope.userId, (txn) => stagePurge(core, txn, scope, hooks));
  // Frame files: the released blocks' extents are zeroed now, not after the grace period reads get.
  await core.lock.run(() => core.eraseReleasedFrames());
  const compact = compactor(core);
  if (compact !== null) {
    for (const [start, end] of staged.ranges) await compact(start, end);
  }
  const { ranges, ...counts } = staged;
  return { userId: scope.userId, sessionId: scope.sessionId, ...counts, compacted: compact !== null, rangesCompacted: compact === null ? 0 : ranges.length };
}
