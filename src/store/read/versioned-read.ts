/**
 * Reads across versions: a chunk's history, reads "as of" a time, and directory views of kept versions. The
 * current version comes from the blocks, superseded ones from the `hist` family (history.ts); everything one call
 * returns is read from one snapshot. An expired chunk is absent for all of them, as for every other read.
 */
import type { AbstractSnapshot } from 'abstract-level';
import type { ChunkRecord } from '../../record/chunk-record.js';
import { decodeDirEntry, isExpired, type DirEntry } from '../../record/dir-entry.js';
import type { HistoryVersion } from '../../record/history-version.js';
import { readSlots, userSlot } from './block-reader.js';
import type { ChunkRef } from '../../api/chunk-input.js';
import { keptAt, readKeptVersions, toChunkVersion, versionRecord } from '../write/history.js';
import type { ChunkVersion, RestoredVersion, ListedEntry, ReadResult, SupersededMark } from '../../api/results.js';
import { dirKey } from '../kv/keys.js';
import { checkRecord } from './read-path.js';
import type { StoreCore } from '../store-core.js';

/** The directory view of a version read from its record (no slot: it is not in a block, or not current). */
export function entryOfRecord(r: ChunkRecord, recordBytes: number): DirEntry {
  return {
    state: 'live',
    version: r.version,
    location: null,
    recordBytes,
    tokenCount: r.tokenCount,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    kind: r.kind,
    keywords: r.keywords,
    supersededBy: null,
    deletedAt: null,
    attributes: r.attributes,
    ...(r.expiresAt === undefined ? {} : { expiresAt: r.expiresAt }),
    ...(r.agentId === undefined ? {} : { agentId: r.agentId }),
    ...(r.runId === undefined ? {} : { runId: r.runId }),
  };
}

async function withSnapshot<T>(core: StoreCore, fn: (s: AbstractSnapshot) => Promise<T>): Promise<T> {
  const snapshot = core.db.snapshot();
  try {
    return await fn(snapshot);
  } finally {
    await snapshot.close();
  }
}

/**
 * Every readable version of a chunk, newest first: the current one (unless deleted) then the kept superseded ones.
 * Empty when the chunk never existed, was purged, or has expired.
 */
export function chunkHistory(core: StoreCore, userId: string, sessionId: string, chunkId: string): Promise<ChunkVersion[]> {
  return withSnapshot(core, async (snapshot) => {
    const key = dirKey(userId, sessionId, chunkId);
    const v = await core.cf.dir.get(key, { snapshot });
    if (v === undefined) return [];
    const entry = decodeDirEntry(v, `directory entry ${JSON.stringify(key)}`, sessionId);
    if (entry.state === 'live' && isExpired(entry, core.options.now())) return [];
    const ref = { userId, sessionId, chunkId };
    const out: ChunkVersion[] = [];
    if (entry.state === 'live') {
      const slots = await readSlots(core.frames, core.cache, [userSlot(userId, entry.location!)], snapshot);
      const record = checkRecord(slots.records[0]!, entry, userId, sessionId, chunkId);
      out.push({ record, version: entry.version, validFrom: entry.updatedAt, validUntil: null, cause: null, supersededBy: null });
    }
    for (const { key: k, h } of await readKeptVersions(core.cf.history, ref, snapshot)) out.push(await toChunkVersion(h, ref, `history ${JSON.stringify(k)}`));
    return out;
  });
}

/** Every kept superseded version of a chunk, oldest first, as `restoreHistory` takes them (dump). */
export async function keptVersions(core: StoreCore, ref: { userId: string; sessionId: string; chunkId: string }, snapshot: AbstractSnapshot): Promise<RestoredVersion[]> {
  const out: RestoredVersion[] = [];
  for (const { key, h } of await readKeptVersions(core.cf.history, ref, snapshot)) {
    const record = await versionRecord(h, ref, `history ${JSON.stringify(key)}`);
    out.push({ record, validFrom: h.validFrom, validUntil: h.supersededAt, cause: h.cause, supersededBy: h.supersededBy });
  }
  return out.reverse();
}

/**
 * How many superseded versions of a chunk are kept and what ended the newest of them, from their history values
 * alone: no body is decompressed (dump counts with it before it writes anything).
 */
export async function keptVersionMarks(
  core: StoreCore,
  ref: { userId: string; sessionId: string; chunkId: string },
  snapshot: AbstractSnapshot,
): Promise<{ count: number; newestCause: HistoryVersion['cause'] | null }> {
  const kept = await readKeptVersions(core.cf.history, ref, snapshot);
  return { count: kept.length, newestCause: kept[0]?.h.cause ?? null };
}

/** The kept version of a chunk that was current at `asOf`, if history still holds it. */
async function keptVersionAt(core: StoreCore, ref: { userId: string; sessionId: string; chunkId: string }, asOf: number, snapshot: AbstractSnapshot): Promise<{ h: HistoryVersion; key: string } | null> {
  for (const kv of await readKeptVersions(core.cf.history, ref, snapshot)) if (keptAt(kv.h, asOf)) return kv;
  return null;
}

/**
 * Materializes chunks as they were at `asOf` from one snapshot: the current version when it was already current
 * then, else the kept version current then; null where the chunk did not exist yet, had been deleted, its version
 * of that time is no longer kept, or it has expired by now.
 */
export function readAsOf(core: StoreCore, userId: string, refs: readonly ChunkRef[], asOf: number): Promise<ReadResult> {
  return withSnapshot(core, async (snapshot) => {
    const keys = refs.map((r) => dirKey(userId, r.sessionId, r.chunkId));
    const values = keys.length === 0 ? [] : await core.cf.dir.getMany(keys, { snapshot });
    const now = core.options.now();
    const chunks: (ChunkRecord | null)[] = refs.map(() => null);
    const current: { i: number; entry: DirEntry }[] = [];
    for (let i = 0; i < refs.length; i++) {
      const v = values[i];
      if (v === undefined) continue;
      const ref = refs[i]!;
      const e = decodeDirEntry(v, `directory entry ${JSON.stringify(keys[i])}`, ref.sessionId);
      if (e.state === 'live' && isExpired(e, now)) continue;
      if (e.state === 'live' && e.updatedAt <= asOf) {
        current.push({ i, entry: e });
        continue;
      }
      if (e.createdAt > asOf) continue;
      const full = { userId, sessionId: ref.sessionId, chunkId: ref.chunkId };
      const kept = await keptVersionAt(core, full, asOf, snapshot);
      if (kept !== null) chunks[i] = await versionRecord(kept.h, full, `history ${JSON.stringify(kept.key)}`);
    }
    const slots = await readSlots(core.frames, core.cache, current.map((c) => userSlot(userId, c.entry.location!)), snapshot);
    current.forEach((c, k) => {
      const ref = refs[c.i]!;
      chunks[c.i] = checkRecord(slots.records[k]!, c.entry, userId, ref.sessionId, ref.chunkId);
    });
    return { chunks, blocksTouched: slots.blocksTouched, framesRead: slots.framesRead, bytesRead: slots.bytesRead };
  });
}

/** Kept versions of chunks by number; null where a version is not kept. */
export function readKept(core: StoreCore, userId: string, refs: readonly (ChunkRef & { version: number })[]): Promise<(ChunkRecord | null)[]> {
  return withSnapshot(core, async (snapshot) => {
    const out: (ChunkRecord | null)[] = [];
    for (const r of refs) {
      const full = { userId, sessionId: r.sessionId, chunkId: r.chunkId };
      const kv = (await readKeptVersions(core.cf.history, full, snapshot)).find((x) => x.h.version === r.version);
      out.push(kv === undefined ? null : await versionRecord(kv.h, full, `history ${JSON.stringify(kv.key)}`));
    }
    return out;
  });
}

/**
 * The directory view of one listed chunk as of `asOf` (null: absent then), reading history only when the
 * current version is newer than `asOf`. REQUIRES: `e` is not expired now (the caller checks).
 */
export async function listedAsOf(core: StoreCore, e: ListedEntry, asOf: number): Promise<ListedEntry | null> {
  if (e.entry.state === 'live' && e.entry.updatedAt <= asOf) return e;
  if (e.entry.createdAt > asOf) return null;
  return withSnapshot(core, async (snapshot) => {
    const full = { userId: e.userId, sessionId: e.sessionId, chunkId: e.chunkId };
    const kept = await keptVersionAt(core, full, asOf, snapshot);
    if (kept === null) return null;
    const r = await versionRecord(kept.h, full, `history ${JSON.stringify(kept.key)}`);
    return { ...full, entry: entryOfRecord(r, kept.h.recordBytes) };
  });
}

/** The kept (superseded) versions of one listed chunk as directory views, newest first, each marked. */
export async function listedSuperseded(core: StoreCore, e: ListedEntry): Promise<(ListedEntry & { superseded: SupersededMark })[]> {
  return withSnapshot(core, async (snapshot) => {
    const full = { userId: e.userId, sessionId: e.sessionId, chunkId: e.chunkId };
    const out: (ListedEntry & { superseded: SupersededMark })[] = [];
    for (const { key, h } of await readKeptVersions(core.cf.history, full, snapshot)) {
      const r = await versionRecord(h, full, `history ${JSON.stringify(key)}`);
      out.push({ ...full, entry: entryOfRecord(r, h.recordBytes), superseded: { at: h.supersededAt, cause: h.cause, by: h.supersededBy } });
    }
    return out;
  });
}
