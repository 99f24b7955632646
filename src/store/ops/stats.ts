import { FRAMES_DIR } from '../file-frame-store.js';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeBlockInfo, invalidRatio } from '../../record/block-info.js';
import { decodeDirEntry } from '../../record/dir-entry.js';
import { FORMAT_VERSION } from '../../record/envelope.js';
import type { StoreCore } from '../store-core.js';
import type { StoreStats } from '../../api/reports.js';
import type { ModelUsageRow } from '../../record/model-usage-rows.js';
import { modelUsageStats } from './model-usage-stats.js';


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

export async function computeStats(core: StoreCore, location: string | null): Promise<StoreStats> {
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
  const usageByUser = new Map<string, readonly ModelUsageRow[]>();
  const a = await core.accountingTotals(undefined, usageByUser);
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
    conflictsRetried: core.ctx.users.conflictsRetried,
    modelUsage: modelUsageStats(a.modelUsage, usageByUser),
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
