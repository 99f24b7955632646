import type { ClassicLevel } from 'classic-level';
import { classicLevel } from './classic-level-module.js';
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { decodeFrame, type DecodedFrame } from '../block/frame-codec.js';
import { AkashicStore } from './akashic-store.js';
import { activeTurnLog } from './internal-seams.js';
import { AkashicError, invalidArgument } from '../errors.js';
import { refuseNonDirectory, requireDatabaseDir } from './database-dir.js';
import { decodeChunkRecord, type ChunkRecord } from '../record/chunk-record.js';
import { decodeDirEntry, type DirEntry } from '../record/dir-entry.js';
import { decodeActiveTurn, decodeEngineMeta, type ActiveTurnValue, type EngineMeta } from '../record/engine-records.js';
import { openFamilies, type ColumnFamilies } from '../store/kv/column-families.js';
import { META_ENGINE_KEY, dirKey, frameKey, parseActiveKey, parseDirKey } from '../store/kv/keys.js';
import { isCorruption, openError } from '../store/kv/level-errors.js';
import { findLogDamage } from '../store/leveldb/log-check.js';
import { makeWorkingCopy } from '../store/leveldb/read-only-copy.js';
import { rebuildDamagedTables } from '../store/leveldb/table-rebuild.js';
import { resilientEntries } from '../store/read/resilient-scan.js';
import type { FrameRef, FrameStore } from '../store/frame-store.js';
import { KvFrameStore } from '../store/kv-frame-store.js';
import { FileFrameStore, FRAMES_DIR } from '../store/file-frame-store.js';
import { META_FRAMES_KEY } from '../store/kv/keys.js';
import { decodeBlockInfo } from '../record/block-info.js';
import { join } from 'node:path';
import { existsSync } from 'node:fs';

export interface SalvageOptions {
  /**
   * Also copy "orphan" records: records in readable block frames whose directory entry is unreadable or gone
   * (so the directory cannot say whether the chunk is live). The newest version found is copied. Off by default,
   * because an orphan may be a chunk that was deleted when its tombstone was damaged: turning this on can bring
   * deleted memories back. Orphans are always counted and listed.
   */
  readonly recoverOrphans?: boolean;
  /** When LevelDB refuses to open the source, run LevelDB's own repair on a temporary copy and salvage that. Default true. */
  readonly repairLevelDb?: boolean;
  /** Skipped items kept in the report (all are counted). Default 1000. */
  readonly maxSkipped?: number;
  /** Called now and then with the number of chunks copied so far. */
  readonly onProgress?: (copied: number) => void;
}

/** Something salvage could not copy, and why. */
export interface SalvageSkip {
  /** The directory key (`user\0session\0chunk`), frame key or active-turn key concerned, when known. */
  readonly key: string;
  readonly reason: string;
}

export interface SalvageReport {
  /** Live chunks copied (their current version, as the directory names it). */
  readonly copied: number;
  /** Tombstones seen (deleted chunks are not copied: the new database simply does not hold them). */
  readonly deleted: number;
  /** Active (not yet compacted) MemAttention turns copied. */
  readonly activeTurns: number;
  /** Live chunks or turns that could not be read, plus unreadable directory entries and frames. */
  readonly skippedCount: number;
  readonly skipped: SalvageSkip[];
  /** Records without a readable directory entry (see `recoverOrphans`), and how many were copied. */
  readonly orphans: number;
  readonly orphansCopied: number;
  readonly orphanKeys: string[];
  /** LevelDB read failures: regions of a table that could not be read at all (their entries are unknown). */
  readonly storageErrors: string[];
  /** A table of the source was damaged, or LevelDB refused to open it: a repaired copy was salvaged instead. */
  readonly repairedLevelDb: boolean;
  /** True when everything was copied: nothing skipped, no orphan, no storage error. */
  readonly complete: boolean;
}

/** Chunks fetched and restored together: bounds salvage's memory (plus one frame cache of this many frames). */
const PAGE = 128;

/**
 * Copies every readable live chunk (current version), and the MemAttention active turns, from a possibly damaged
 * database at `fromPath` into a new database at `toPath`, and reports precisely what it could not copy. The
 * source is only read. The target must not exist yet (or be an empty directory); it is created with the
 * source's block layout settings and is a healthy database whatever the source's damage (`verify()` clean).
 *
 * How it reads past damage: the source is opened below the engine (no engine record has to be readable);
 * every column family is scanned with `resilientEntries`, which resumes after unreadable LevelDB table regions;
 * each live directory entry's record is read from its frame, checked against the entry (ids, version) and copied
 * with `restore`; whatever fails is skipped and reported. A final scan of every readable frame finds orphans:
 * records whose directory entry was lost.
 *
 * Memory: O(page) — 128 chunks and the frames they live in — plus the report.
 *
 * @example
 *   const report = await salvage('./memory', './memory-salvaged');
 *   if (!report.complete) console.log(report.skipped, report.storageErrors);
 */
export async function salvage(fromPath: string, toPath: string, opts: SalvageOptions = {}): Promise<SalvageReport> {
  if (typeof fromPath !== 'string' || typeof toPath !== 'string' || fromPath === '' || toPath === '') throw invalidArgument('salvage needs two paths');
  if (resolve(fromPath) === resolve(toPath)) throw invalidArgument('salvage copies into a new database: give a different target path');
  await refuseNonDirectory(toPath, 'salvage target');
  await requireDatabaseDir(fromPath, 'salvage source', { damaged: true });
  if ((await readdir(toPath).catch(() => [])).length > 0) throw invalidArgument(`salvage target ${toPath} exists and is not empty`);
  const maxSkipped = opts.maxSkipped ?? 1000;

  const src = await openSource(fromPath, opts.repairLevelDb ?? true);
  let openedFrames: FrameStore | null = null;
  try {
    const cf = openFamilies(src.db);
    const frameStore = await sourceFrames(cf, fromPath);
    openedFrames = frameStore;
    const storageErrors: string[] = [...src.damage];
    const onError = (what: string) => (err: unknown, after: string | null) => {
      storageErrors.push(`${what}: unreadable region${after === null ? '' : ` after ${JSON.stringify(after)}`}: ${err instanceof Error ? err.message : String(err)}`);
    };
    const meta = await readMeta(cf);
    const target = await AkashicStore.open({
      path: toPath,
      durability: 'relaxed',
      gc: { intervalMs: 0 },
      ...(meta === null ? {} : { blockCapacity: meta.blockCapacity, blockMaxBytes: meta.blockMaxBytes, crossSessionBlocks: meta.crossSessionBlocks }),
    });
    const skipped: SalvageSkip[] = [];
    let skippedCount = 0;
    const skip = (key: string, reason: string): void => {
      skippedCount++;
      if (skipped.length < maxSkipped) skipped.push({ key, reason });
    };
    let copied = 0;
    let deleted = 0;
    let activeTurns = 0;
    const orphanKeys: string[] = [];
    let orphans = 0;
    let orphansCopied = 0;
    try {
      // Pass 1: the directory, page by page.
      let page: { key: string; userId: string; sessionId: string; chunkId: string; entry: DirEntry }[] = [];
      const flush = async (): Promise<void> => {
        const frames = new Map<string, DecodedFrame | string>();
        for (const p of page) {
          const fk = frameKey(p.entry.location!.blockId, p.entry.location!.frame);
          if (frames.has(fk)) continue;
          frames.set(fk, await readFrame(frameStore, { userId: p.userId, blockId: p.entry.location!.blockId, frame: p.entry.location!.frame }));
        }
        const ok: ChunkRecord[] = [];
        for (const p of page) {
          const loc = p.entry.location!;
          const f = frames.get(frameKey(loc.blockId, loc.frame))!;
          if (typeof f === 'string') {
            skip(p.key, f);
            continue;
          }
          const bytes = f.records[loc.slot];
          if (bytes === undefined) {
            skip(p.key, `frame ${frameKey(loc.blockId, loc.frame)} has no slot ${loc.slot}`);
            continue;
          }
          try {
            const r = decodeChunkRecord(bytes, `record at ${frameKey(loc.blockId, loc.frame)} slot ${loc.slot}`);
            if (r.userId !== p.userId || r.sessionId !== p.sessionId || r.chunkId !== p.chunkId || r.version !== p.entry.version) {
              skip(p.key, `slot holds ${r.userId}/${r.sessionId}/${r.chunkId} v${r.version}, the directory expects v${p.entry.version}`);
              continue;
            }
            ok.push(r);
          } catch (err) {
            skip(p.key, (err as Error).message);
          }
        }
        copied += await restoreAll(target, ok, skip);
        page = [];
        opts.onProgress?.(copied);
      };
      for await (const [k, v] of resilientEntries(cf.dir, {}, onError('directory'))) {
        const p = parseDirKey(k);
        if (p === null) {
          skip(k, 'malformed directory key');
          continue;
        }
        let entry: DirEntry;
        try {
          entry = decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`);
        } catch (err) {
          skip(k, (err as Error).message);
          continue;
        }
        if (entry.state !== 'live') {
          deleted++;
          continue;
        }
        page.push({ key: k, ...p, entry });
        if (page.length >= PAGE) await flush();
      }
      if (page.length > 0) await flush();

      // Pass 2: orphans, in every readable frame.
      // Frame files keep a released block's bytes until its segment goes: only blocks still holding data count.
      const holding = frameStore.keepsReleasedFrames ? await blocksHoldingData(cf, onError('block infos')) : null;
      for await (const { blockId, frame, value: v } of frameStore.entries(onError('block frames'), holding === null ? undefined : (b) => holding.has(b))) {
        const fk = frameKey(blockId, frame);
        let f: DecodedFrame;
        try {
          f = await decodeFrame(v, `block frame ${fk}`);
        } catch {
          continue; // its live chunks were reported by pass 1; its dead ones do not matter
        }
        const recs: ChunkRecord[] = [];
        for (const bytes of f.records) {
          try {
            recs.push(decodeChunkRecord(bytes, fk));
          } catch {
            // a damaged record inside a frame whose checksum held cannot happen; if it does, pass 1 reported it
          }
        }
        if (recs.length === 0) continue;
        const keys = recs.map((r) => dirKey(r.userId, r.sessionId, r.chunkId));
        // A directory key in an unreadable table region fails the whole getMany: then look them up one by one.
        const values = await cf.dir.getMany(keys).catch(() => Promise.all(keys.map((k) => cf.dir.get(k).catch(() => undefined))));
        const found: ChunkRecord[] = [];
        recs.forEach((r, i) => {
          const dv = values[i];
          if (dv !== undefined) {
            try {
              decodeDirEntry(dv, keys[i]!);
              return; // the directory decides: copied in pass 1, or deleted, or an old version
            } catch {
              // unreadable entry: an orphan
            }
          }
          orphans++;
          if (orphanKeys.length < maxSkipped) orphanKeys.push(`${keys[i]!} v${r.version}`);
          found.push(r);
        });
        if (opts.recoverOrphans === true && found.length > 0) orphansCopied += await restoreAll(target, found, skip);
      }

      // Pass 3: MemAttention's active turns (acknowledged turns not compacted yet) are user data too. They are
      // appended to the target's active-turn log one namespace run at a time, in the source's (= arrival) order.
      const log = target[activeTurnLog];
      let turns: ActiveTurnValue[] = [];
      let ns: { userId: string; sessionId: string } | null = null;
      const flushTurns = async (): Promise<void> => {
        if (turns.length === 0 || ns === null) return;
        await log.append(ns.userId, ns.sessionId, turns);
        activeTurns += turns.length;
        turns = [];
      };
      for await (const [k, v] of resilientEntries(cf.active, {}, onError('active turns'))) {
        const at = parseActiveKey(k);
        if (at === null) {
          skip(k, 'malformed active-turn key');
          continue;
        }
        let turn: ActiveTurnValue;
        try {
          turn = decodeActiveTurn(v, `active turn ${JSON.stringify(k)}`);
        } catch (err) {
          skip(k, (err as Error).message);
          continue;
        }
        if (ns === null || ns.userId !== at.userId || ns.sessionId !== at.sessionId || turns.length >= PAGE) {
          await flushTurns();
          ns = at;
        }
        turns.push(turn);
      }
      await flushTurns();
    } finally {
      await target.close();
    }
    return {
      copied,
      deleted,
      activeTurns,
      skippedCount,
      skipped,
      orphans,
      orphansCopied,
      orphanKeys,
      storageErrors,
      repairedLevelDb: src.repaired,
      complete: skippedCount === 0 && orphans === 0 && storageErrors.length === 0,
    };
  } finally {
    await src.close();
    await openedFrames?.close();
  }
}

async function readMeta(cf: ColumnFamilies): Promise<EngineMeta | null> {
  try {
    const v = await cf.meta.get(META_ENGINE_KEY);
    return v === undefined ? null : decodeEngineMeta(v, 'engine meta');
  } catch {
    return null; // defaults are fine: layout settings only shape the new blocks
  }
}

/** A decoded frame, or why it cannot be read. */
async function readFrame(frames: FrameStore, ref: FrameRef): Promise<DecodedFrame | string> {
  const key = frameKey(ref.blockId, ref.frame);
  try {
    const [v] = await frames.getMany([ref]);
    if (v === undefined) return `frame ${key} is missing`;
    return await decodeFrame(v, `block frame ${key}`);
  } catch (err) {
    return (err as Error).message;
  }
}

/** Restores records (any users, in order) one user's run at a time; a batch the target rejects is retried record by record. */
async function restoreAll(target: AkashicStore, records: readonly ChunkRecord[], skip: (key: string, reason: string) => void): Promise<number> {
  let n = 0;
  let at = 0;
  while (at < records.length) {
    const user = records[at]!.userId;
    let end = at;
    while (end < records.length && records[end]!.userId === user) end++;
    const run = records.slice(at, end);
    try {
      await target.restore(user, run);
      n += run.length;
    } catch {
      for (const r of run) {
        try {
          await target.restore(user, [r]);
          n++;
        } catch (err) {
          skip(dirKey(r.userId, r.sessionId, r.chunkId), `the new database rejects the record: ${(err as Error).message}`);
        }
      }
    }
    at = end;
  }
  return n;
}

interface Source {
  readonly db: ClassicLevel<string, Buffer>;
  readonly repaired: boolean;
  /** Damage found in the source's write-ahead logs (LevelDB drops the damaged records when it replays them) and tables. */
  readonly damage: string[];
  close(): Promise<void>;
}

/**
 * Opens a working copy of the source below the engine (the source itself is never opened, so never written).
 * Every table of the copy that its MANIFEST names is checked first: a damaged table is rebuilt in the copy from its
 * readable blocks (a damaged key would otherwise abort the process in LevelDB's compaction), and LevelDB's repair
 * then rebuilds the copy's MANIFEST. On LevelDB corruption at open, the same repair runs on the copy. Before any
 * repair, the tables the MANIFEST does not name (a crash's partial leftovers) are checked and rebuilt too, since
 * the repair reads them.
 */
async function openSource(path: string, repair: boolean): Promise<Source> {
  const logDamage = (await findLogDamage(path)).map((d) => `write-ahead log ${d.file} at byte ${d.offset}: ${d.reason} (the rest of that log block is lost)`);
  const copy = await makeWorkingCopy(path);
  const rebuild = async (skipOrphans: boolean): Promise<string[]> => {
    try {
      return (await rebuildDamagedTables(copy.path, { skipOrphans })).map((d) => `table ${d.file} at byte ${d.offset}: ${d.reason} (${d.whatIsLost})`);
    } catch (err) {
      await copy.remove();
      throw new AkashicError('AKASHIC_IO', `cannot check the tables of salvage source ${path}: ${(err as Error).message}`, { cause: err });
    }
  };
  // Tables the MANIFEST names: a partial table a crash left (LevelDB deletes it at open) is not damage.
  const tableLoss = await rebuild(true);
  const open = async (): Promise<ClassicLevel<string, Buffer>> => {
    const db = new (await classicLevel())<string, Buffer>(copy.path, { keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing: false });
    await db.open();
    return db;
  };
  const opened = (db: ClassicLevel<string, Buffer>, repaired: boolean): Source => ({
    db,
    repaired,
    damage: [...logDamage, ...tableLoss],
    close: async () => {
      await db.close();
      await copy.remove();
    },
  });
  if (tableLoss.length === 0) {
    try {
      return opened(await open(), false);
    } catch (err) {
      if (!repair || !isCorruption(err)) {
        await copy.remove();
        throw openError(err, path);
      }
    }
  }
  // LevelDB's repair reads every table file, named or not (and the MANIFEST may be what was damaged): the tables
  // left alone above are checked now, so a damaged one is rebuilt rather than read by the repair.
  tableLoss.push(...(await rebuild(false)));
  try {
    await (await classicLevel()).repair(copy.path);
    const db = await open();
    // Repair puts every table in level 0, where a point lookup trusts the newest file number rather than the
    // newest write: one full compaction merges them by sequence number, as LevelDB's reads expect.
    await db.compactRange(Buffer.alloc(0), Buffer.alloc(8, 0xff), { keyEncoding: 'buffer' });
    return opened(db, true);
  } catch (err) {
    await copy.remove();
    throw new AkashicError('AKASHIC_CORRUPTION', `cannot open salvage source ${path}, even after LevelDB repair of a copy: ${(err as Error).message}`, { cause: err });
  }
}

/** The source's frames: in frame files when its frames marker says so (readable or not: files are tried first). */
async function sourceFrames(cf: ColumnFamilies, fromPath: string): Promise<FrameStore> {
  const kv = new KvFrameStore(cf.blocks);
  // The marker may sit in a damaged table region: frame files beside the database say it too.
  const marker = await cf.meta.get(META_FRAMES_KEY).catch(() => undefined);
  if (marker === undefined && !existsSync(join(fromPath, FRAMES_DIR))) return kv;
  return new FileFrameStore({ dir: join(fromPath, FRAMES_DIR), durability: 'relaxed', readOnly: true, kv, now: () => Date.now() });
}

/** Ids of blocks whose info is readable and not released. */
async function blocksHoldingData(cf: ColumnFamilies, onError: (err: unknown, after: string | null) => void): Promise<Set<number>> {
  const out = new Set<number>();
  for await (const [k, v] of resilientEntries(cf.blockInfo, {}, onError)) {
    try {
      const info = decodeBlockInfo(v, `block info ${k}`);
      if (info.state !== 'released') out.add(info.blockId);
    } catch {
      // an unreadable info: its block's orphans cannot be told from released data
    }
  }
  return out;
}
