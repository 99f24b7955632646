import type { AbstractSnapshot } from 'abstract-level';
import type { BlockCache } from '../block/block-cache.js';
import { corruption } from '../errors.js';
import type { Accounting } from '../record/accounting.js';
import { decodeBlockInfo, type BlockInfo } from '../record/block-info.js';
import { decodeChunkRecord, type ChunkRecord } from '../record/chunk-record.js';
import { decodeDirEntry, isExpired, type DirEntry } from '../record/dir-entry.js';
import { readSlots, type SlotReadResult } from './block-reader.js';
import type { ChunkRef } from './chunk-input.js';
import type { ColumnFamilies } from './column-families.js';
import { SEP, afterPrefix, dirKey, parseDirKey, prefixRange } from './keys.js';
import type { AnyLevel } from './options.js';
import { confirmMisses } from './resilient-scan.js';

export interface ReadResult extends Omit<SlotReadResult, 'records'> {
  /** One per requested ref, in request order; null where the chunk does not exist or is deleted. */
  readonly chunks: (ChunkRecord | null)[];
}

export interface ListedEntry {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly entry: DirEntry;
}

/** What the read path reads from: the database (for snapshots), its column families and the decoded-frame cache. */
export interface ReadSource {
  readonly db: AnyLevel;
  readonly cf: ColumnFamilies;
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
export async function readChunks(src: ReadSource, accounting: Accounting, now: () => number, userId: string, refs: readonly ChunkRef[]): Promise<ReadResult> {
  const snapshot = src.db.snapshot();
  try {
    const keys = refs.map((r) => dirKey(userId, r.sessionId, r.chunkId));
    const values = keys.length === 0 ? [] : await src.cf.dir.getMany(keys, { snapshot });
    // A damaged LevelDB filter block turns point lookups into silent misses; re-check misses with a scan.
    await confirmMisses(src.cf.dir, keys, values, snapshot);
    const entries = values.map((v, i) => (v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(keys[i])}`)));
    const wanted: { i: number; entry: DirEntry }[] = [];
    const at = now();
    entries.forEach((e, i) => {
      if (e !== null && e.state === 'live' && !isExpired(e, at)) wanted.push({ i, entry: e });
    });
    const slots = await readSlots(src.cf.blocks, src.cache, wanted.map((w) => w.entry.location!), snapshot);
    const chunks: (ChunkRecord | null)[] = refs.map(() => null);
    wanted.forEach((w, k) => {
      const ref = refs[w.i]!;
      chunks[w.i] = checkRecord(slots.records[k]!, w.entry, userId, ref.sessionId, ref.chunkId);
    });
    accounting.retrievals++;
    accounting.retrievalBlocks += slots.blocksTouched;
    return { chunks, blocksTouched: slots.blocksTouched, framesRead: slots.framesRead, bytesRead: slots.bytesRead };
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
  const slots = await readSlots(src.cf.blocks, src.cache, entries.map((e) => e.entry.location!), snapshot);
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
