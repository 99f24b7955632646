import type { AbstractSnapshot } from 'abstract-level';
import type { BlockCache } from '../../block/block-cache.js';
import { corruption } from '../../errors.js';
import { decodeBlockInfo, type BlockInfo } from '../../record/block-info.js';
import { decodeChunkRecord, type ChunkRecord } from '../../record/chunk-record.js';
import { decodeDirEntry, isExpired, type DirEntry } from '../../record/dir-entry.js';
import { readSlots, readSlotsOrNull, userSlot } from './block-reader.js';
import type { ReadCounters } from '../write/user-states.js';
import type { ChunkRef, LocatedRef } from '../../api/chunk-input.js';

export type { LocatedRef } from '../../api/chunk-input.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import type { FrameStore } from '../frame-store.js';
import { SEP, afterPrefix, dirKey, parseDirKey, prefixRange } from '../kv/keys.js';
import type { AnyLevel } from '../../api/store-options.js';
import { confirmMisses } from './resilient-scan.js';
import type { ReadResult, ListedEntry } from '../../api/results.js';

/** What the read path reads from: the database (for snapshots), its column families, frames and the decoded-frame cache. */
export interface ReadSource {
  readonly db: AnyLevel;
  readonly cf: ColumnFamilies;
  readonly frames: FrameStore;
  readonly cache: BlockCache;
}

/** Decodes a record and checks it is the one the directory entry promises. */
export function checkRecord(bytes: Uint8Array, entry: DirEntry, userId: string, sessionId: string, chunkId: string): ChunkRecord {
  const loc = entry.location!;
  const what = `record at block ${loc.blockId} frame ${loc.frame} slot ${loc.slot}`;
  const r = decodeChunkRecord(bytes, what);
  if (r.userId !== userId || r.sessionId !== sessionId || r.chunkId !== chunkId || r.version !== entry.version) {
    throw corruption(`${what} holds ${r.userId}/${r.sessionId}/${r.chunkId} v${r.version}, directory expects ${userId}/${sessionId}/${chunkId} v${entry.version}`);
  }
  return r;
}

/**
 * Materializes chunks from one consistent snapshot; a chunk expired at `now()` (read once the entries are in)
 * reads as absent. Bumps the retrieval counters of `accounting` in memory (reads write nothing).
 */
export async function readChunks(src: ReadSource, accounting: ReadCounters, now: () => number, userId: string, refs: readonly ChunkRef[]): Promise<ReadResult> {
  const snapshot = src.db.snapshot();
  try {
    const r = await readThroughDirectory(src, now, userId, refs, snapshot);
    accounting.retrievals++;
    accounting.retrievalBlocks += r.blocksTouched;
    return r;
  } finally {
    await snapshot.close();
  }
}

/** The live entries (null: absent, deleted or expired at `now()`) of `refs`, from `snapshot`. */
async function liveEntries(src: ReadSource, now: () => number, userId: string, refs: readonly ChunkRef[], snapshot: AbstractSnapshot): Promise<(DirEntry | null)[]> {
  const keys = refs.map((r) => dirKey(userId, r.sessionId, r.chunkId));
  const values = keys.length === 0 ? [] : await src.cf.dir.getMany(keys, { snapshot });
  // A damaged LevelDB filter block turns point lookups into silent misses; re-check misses with a scan.
  await confirmMisses(src.cf.dir, keys, values, snapshot);
  const at = now();
  return values.map((v, i) => {
    const e = v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(keys[i])}`);
    return e !== null && e.state === 'live' && !isExpired(e, at) ? e : null;
  });
}

/** The directory read, then one read of the slots it names. */
async function readThroughDirectory(src: ReadSource, now: () => number, userId: string, refs: readonly ChunkRef[], snapshot: AbstractSnapshot): Promise<ReadResult> {
  const entries = await liveEntries(src, now, userId, refs, snapshot);
  const wanted: { i: number; entry: DirEntry }[] = [];
  entries.forEach((e, i) => {
    if (e !== null) wanted.push({ i, entry: e });
  });
  const slots = await readSlots(src.frames, src.cache, wanted.map((w) => userSlot(userId, w.entry.location!)), snapshot);
  const chunks: (ChunkRecord | null)[] = refs.map(() => null);
  wanted.forEach((w, k) => {
    const ref = refs[w.i]!;
    chunks[w.i] = checkRecord(slots.records[k]!, w.entry, userId, ref.sessionId, ref.chunkId);
  });
  return { chunks, blocksTouched: slots.blocksTouched, framesRead: slots.framesRead, bytesRead: slots.bytesRead };
}

/** The location hints of `refs` (null: absent, deleted or expired), read from the directory. */
export async function locateChunks(src: ReadSource, now: () => number, userId: string, refs: readonly ChunkRef[]): Promise<(LocatedRef | null)[]> {
  const snapshot = src.db.snapshot();
  try {
    const entries = await liveEntries(src, now, userId, refs, snapshot);
    return entries.map((e, i) => (e === null ? null : locatedRef(refs[i]!, e)));
  } finally {
    await snapshot.close();
  }
}

export function locatedRef(ref: ChunkRef, e: DirEntry): LocatedRef {
  return { sessionId: ref.sessionId, chunkId: ref.chunkId, version: e.version, location: e.location!, ...(e.expiresAt === undefined ? {} : { expiresAt: e.expiresAt }) };
}

/**
 * Fetch by slot: reads the blocks the hints name (per block, one read of the frames not cached and one zstd call for them),
 * without reading the directory first. A chunk whose hint is stale (its block released, or the slot holding
 * something else) is read through the directory, in the same snapshot; one whose hint has expired at `now()`
 * reads as absent. A chunk deleted, updated or moved after the hint was taken, while its old slot still exists,
 * reads as the hint's version: the read is then as of when the hint was taken (the recall that gathered it).
 */
export async function readLocated(src: ReadSource, accounting: ReadCounters, now: () => number, userId: string, located: readonly LocatedRef[]): Promise<ReadResult> {
  const snapshot = src.db.snapshot();
  try {
    const at = now();
    const live = located.filter((l) => !isExpired(l, at));
    const slots = await readSlotsOrNull(src.frames, src.cache, live.map((l) => userSlot(userId, l.location)), snapshot);
    const byLoc = new Map<LocatedRef, ChunkRecord>();
    const stale: LocatedRef[] = [];
    live.forEach((l, k) => {
      const bytes = slots.records[k] ?? null;
      const rec = bytes === null ? null : decodeChunkRecord(bytes, `record at block ${l.location.blockId} frame ${l.location.frame} slot ${l.location.slot}`);
      if (rec !== null && rec.userId === userId && rec.sessionId === l.sessionId && rec.chunkId === l.chunkId && rec.version === l.version) byLoc.set(l, rec);
      else stale.push(l);
    });
    let blocksTouched = slots.blocksTouched;
    let framesRead = slots.framesRead;
    let bytesRead = slots.bytesRead;
    if (stale.length > 0) {
      const again = await readThroughDirectory(src, now, userId, stale, snapshot);
      stale.forEach((l, i) => {
        const c = again.chunks[i] ?? null;
        if (c !== null) byLoc.set(l, c);
      });
      blocksTouched += again.blocksTouched;
      framesRead += again.framesRead;
      bytesRead += again.bytesRead;
    }
    accounting.retrievals++;
    accounting.retrievalBlocks += blocksTouched;
    return { chunks: located.map((l) => byLoc.get(l) ?? null), blocksTouched, framesRead, bytesRead };
  } finally {
    await snapshot.close();
  }
}

/**
 * Directory entries in key order (within a namespace, ULID order): every user's when `userId` is null, one
 * user's, or one user's session; `sessionId` without `userId` keeps that session of every user. Reads the
 * committed state, or `snapshot` when given (the caller keeps it open until the generator finishes).
 */
export async function* listEntries(cf: ColumnFamilies, userId: string | null, sessionId: string | null, snapshot?: AbstractSnapshot): AsyncGenerator<ListedEntry> {
  const range = userId === null ? {} : sessionId === null ? prefixRange(userId) : prefixRange(userId, sessionId);
  for await (const [k, v] of cf.dir.iterator(snapshot === undefined ? range : { ...range, snapshot })) {
    const p = parseDirKey(k);
    if (p === null) throw corruption(`malformed directory key ${JSON.stringify(k)}`);
    if (sessionId !== null && p.sessionId !== sessionId) continue;
    yield { ...p, entry: decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`, p.sessionId) };
  }
}

/** Every block info (released ones included) in block id order, from the committed state or `snapshot`. */
export async function* listBlockInfos(cf: ColumnFamilies, snapshot?: AbstractSnapshot): AsyncGenerator<BlockInfo> {
  for await (const [k, v] of cf.blockInfo.iterator(snapshot === undefined ? {} : { snapshot })) yield decodeBlockInfo(v, `block info ${k}`);
}

/**
 * The records of live directory entries, read from `snapshot` (one getMany for the frames not cached), each
 * checked against its entry. Memory: the records plus their frames.
 */
export async function readLiveRecords(src: ReadSource, entries: readonly ListedEntry[], snapshot: AbstractSnapshot): Promise<ChunkRecord[]> {
  const slots = await readSlots(src.frames, src.cache, entries.map((e) => userSlot(e.userId, e.entry.location!)), snapshot);
  return entries.map((e, i) => checkRecord(slots.records[i]!, e.entry, e.userId, e.sessionId, e.chunkId));
}

/** Distinct users (skip-scan of the directory: one seek per user). */
export async function listUsers(cf: ColumnFamilies): Promise<string[]> {
  const out: string[] = [];
  const it = cf.dir.keys();
  try {
    for (;;) {
      const k = await it.next();
      if (k === undefined) break;
      const sep = k.indexOf(SEP);
      if (sep <= 0) {
        // A key without a user part is damage (verify() names it): skip exactly it, so the scan always progresses.
        it.seek(k + '\u0000');
        continue;
      }
      const user = k.slice(0, sep);
      out.push(user);
      it.seek(afterPrefix(user));
    }
  } finally {
    await it.close();
  }
  return out;
}

/** Distinct sessions of a user. */
export async function listSessions(cf: ColumnFamilies, userId: string): Promise<string[]> {
  const out: string[] = [];
  const range = prefixRange(userId);
  const it = cf.dir.keys(range);
  try {
    for (;;) {
      const k = await it.next();
      if (k === undefined) break;
      const p = parseDirKey(k);
      if (p === null) {
        it.seek(k + '\u0000'); // damage (verify() names it): skip exactly this key
        continue;
      }
      out.push(p.sessionId);
      it.seek(afterPrefix(userId, p.sessionId));
    }
  } finally {
    await it.close();
  }
  return out;
}
