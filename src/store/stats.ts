import { FRAMES_DIR } from './file-frame-store.js';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeBlockInfo, invalidRatio } from '../record/block-info.js';
import { decodeDirEntry } from '../record/dir-entry.js';
import { FORMAT_VERSION } from '../record/envelope.js';
import type { StoreCore } from './store-core.js';
import type { PostingMergeReport } from './posting-merge.js';
import type { ModelUsageStats } from '../util/model-usage.js';

/**
 * Engine figures. Field names are a stable, documented contract (docs/format.md, "Stats"); `akashic stats --json`
 * prints exactly this object.
 */
export interface StoreStats {
  readonly formatVersion: number;
  readonly engineVersion: string;
  readonly users: number;
  readonly sessions: number;
  /** Live chunks. */
  readonly chunks: number;
  /** Tombstoned (deleted or reconciled-away) chunks. */
  readonly deletedChunks: number;
  /** Chunks whose live version is not their first (updated at least once). */
  readonly updatedChunks: number;
  /** Blocks holding data (open + sealed). */
  readonly blocks: number;
  readonly blocksByState: { readonly open: number; readonly sealed: number; readonly released: number };
  /** Counts of non-released blocks by φ in ten buckets [0,0.1), ..., [0.9,1.0]. */
  readonly phiHistogram: readonly number[];
  readonly logicalBytesIngested: number;
  readonly engineBytesWritten: number;
  readonly liveBytes: number;
  readonly storedRawBytes: number;
  readonly storedBytes: number;
  /**
   * Size of the database's files on disk (classic-level: tables, write-ahead log, manifest; not LevelDB's
   * diagnostic LOG, which every open rewrites), or null (other backends).
   */
  readonly diskBytes: number | null;
  /** engineBytesWritten ÷ logicalBytesIngested (null before any write). */
  readonly writeAmplification: number | null;
  /**
   * (storedRawBytes + historyBytes) ÷ liveBytes, uncompressed (null with no live data): superseded versions kept as
   * history count as space beyond the live data.
   */
  readonly spaceAmplification: number | null;
  /** Superseded versions kept as history, and their encoded record bytes (uncompressed). */
  readonly historyVersions: number;
  readonly historyBytes: number;
  /** storedBytes ÷ liveBytes: the same, as stored (compressed). */
  readonly storedSpaceRatio: number | null;
  readonly relocations: number;
  readonly relocatedChunks: number;
  readonly gcRuns: number;
  readonly gcMovedChunks: number;
  readonly blocksCreated: number;
  readonly blocksReleased: number;
  readonly retrievals: number;
  /** Mean blocks touched per retrieval since the database was created (null before any). */
  readonly blocksPerRetrieval: number | null;
  readonly blockCapacity: number;
  /**
   * The candidate index's background posting merges: chunks whose postings are still pending, merges that failed
   * since open (each changed nothing; the pending chunks stay findable and the merge is retried at the user's next
   * write), and the last failure with its code.
   */
  readonly postingMerge: PostingMergeReport;
  /**
   * Model calls since the store was opened (in memory, not persisted): GC grouping and what AkashicMemory's
   * compactions, recalls and relocations cost, in total, per operation, per call and per user.
   */
  readonly modelUsage: ModelUsageStats;
}

/** LevelDB's diagnostic files: its text log (rewritten on every open, read-only ones too) and the lock. */
const NOT_DATA = new Set(['LOG', 'LOG.old', 'LOCK']);

async function dirSize(path: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(path)) {
    if (NOT_DATA.has(name)) continue;
    // LevelDB's background compaction may delete a table file between the listing and its stat: it no longer counts.
    const s = await stat(join(path, name)).catch((err: unknown) => {
      if ((err as { code?: unknown } | null)?.code === 'ENOENT') return null;
      throw err;
    });
    if (s !== null && s.isFile()) total += s.size;
    // Frame files are sparse (a block's extent holds only what was written): count what the disk allocated.
    else if (s !== null && s.isDirectory() && name === FRAMES_DIR) total += await allocatedSize(join(path, name));
  }
  return total;
}

export async function computeStats(core: StoreCore, location: string | null): Promise<Omit<StoreStats, 'modelUsage'>> {
  let chunks = 0;
  let deleted = 0;
  let updated = 0;
  const users = new Set<string>();
  const sessions = new Set<string>();
  for await (const [k, v] of core.cf.dir.iterator()) {
    const parts = k.split('\u0000');
    users.add(parts[0]!);
    sessions.add(parts[0] + '\u0000' + parts[1]);
    const e = decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`);
    if (e.state === 'live') {
      chunks++;
      if (e.version > 1) updated++;
    } else deleted++;
  }
  const byState = { open: 0, sealed: 0, released: 0 };
  const phi = new Array<number>(10).fill(0);
  for await (const [k, v] of core.cf.blockInfo.iterator()) {
    const info = decodeBlockInfo(v, `block info ${k}`);
    byState[info.state]++;
    if (info.state !== 'released') phi[Math.min(9, Math.floor(invalidRatio(info) * 10))]!++;
  }
  const a = core.accounting;
  const ratio = (n: number, d: number): number | null => (d === 0 ? null : n / d);
  return {
    formatVersion: FORMAT_VERSION,
    engineVersion: core.meta.engineVersion,
    users: users.size,
    sessions: sessions.size,
    chunks,
    deletedChunks: deleted,
    updatedChunks: updated,
    blocks: byState.open + byState.sealed,
    blocksByState: byState,
    phiHistogram: phi,
    logicalBytesIngested: a.logicalBytesIngested,
    engineBytesWritten: a.engineBytesWritten,
    liveBytes: a.liveBytes,
    storedRawBytes: a.storedRawBytes,
    storedBytes: a.storedBytes,
    diskBytes: location === null ? null : await dirSize(location),
    writeAmplification: ratio(a.engineBytesWritten, a.logicalBytesIngested),
    spaceAmplification: ratio(a.storedRawBytes + a.historyBytes, a.liveBytes),
    historyVersions: a.historyVersions,
    historyBytes: a.historyBytes,
    storedSpaceRatio: ratio(a.storedBytes, a.liveBytes),
    relocations: a.relocations,
    relocatedChunks: a.relocatedChunks,
    gcRuns: a.gcRuns,
    gcMovedChunks: a.gcMovedChunks,
    blocksCreated: a.blocksCreated,
    blocksReleased: a.blocksReleased,
    retrievals: a.retrievals,
    blocksPerRetrieval: ratio(a.retrievalBlocks, a.retrievals),
    blockCapacity: core.options.blockCapacity,
    postingMerge: core.postingMergeReport(),
  };
}

/** Bytes the file system allocated to the files of a directory (st_blocks × 512). */
async function allocatedSize(path: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(path).catch(() => [])) {
    const s = await stat(join(path, name)).catch(() => null);
    if (s !== null && s.isFile()) total += s.blocks * 512;
  }
  return total;
}
