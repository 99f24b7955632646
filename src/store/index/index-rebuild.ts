import { decodeDirEntry } from '../../record/dir-entry.js';
import { INDEX_PRESENT } from '../../record/index-records.js';
import { entryKeys, indexedChunk } from './candidate-index.js';
import { countPending } from './posting-merge.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import { META_INDEX_KEY, META_INDEX_V2_KEY, META_INDEX_V3_KEY, SEP, parseDirKey } from '../kv/keys.js';
import type { BatchOp, BatchWriter } from '../kv/batch-writer.js';

/** Index operations per batch while rebuilding. */
const REBUILD_BATCH_OPS = 20_000;

/** The marker of a complete format-5 index, in the batch that completes it (older markers go). */
function markerOps(cf: ColumnFamilies): BatchOp[] {
  return [
    { type: 'put', sublevel: cf.meta, key: META_INDEX_KEY, value: INDEX_PRESENT },
    { type: 'del', sublevel: cf.meta, key: META_INDEX_V3_KEY },
    { type: 'del', sublevel: cf.meta, key: META_INDEX_V2_KEY },
  ];
}

/**
 * Builds the candidate index from the directory (a database written before the index existed, or a rebuild that a
 * crash interrupted): clears the `cidx` family, walks the directory once in key order and writes the entry keys in
 * batches, then the marker `meta/cidx5` last — so a crash at any point leaves the marker absent and the next writable
 * open starts over.
 *
 * Requires: no concurrent writer (called from open, before the store is handed out). Memory: one batch of keys.
 */
export async function rebuildCandidateIndex(cf: ColumnFamilies, writer: BatchWriter): Promise<{ chunks: number }> {
  // Clearing is a bulk delete LevelDB does itself (abstract-level's clear); the rebuild then writes through the
  // writer, so a write error latches the store as any other write does.
  await cf.candidates.clear();
  let keys: string[] = [];
  let chunks = 0;
  const flushKeys = async (): Promise<void> => {
    if (keys.length === 0) return;
    await writer.write(keys.map((key) => ({ type: 'put' as const, sublevel: cf.candidates, key, value: INDEX_PRESENT })));
    keys = [];
  };
  for await (const [k, v] of cf.dir.iterator()) {
    const p = parseDirKey(k);
    if (p === null) continue; // verify() reports malformed keys
    const c = indexedChunk(p.userId, p.sessionId, p.chunkId, decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`));
    if (c === null) continue;
    chunks++;
    for (const key of entryKeys(c, true)) keys.push(key);
    if (keys.length >= REBUILD_BATCH_OPS) await flushKeys();
  }
  await flushKeys();
  await writer.write(markerOps(cf));
  return { chunks };
}

/**
 * Readies the candidate index at open. A format-5 index is used as is. A format-3/4 index (or a format-2 one: every
 * chunk posted, no pending keys) has the same entry keys plus counters: a writable open deletes the counters (`f`
 * and `n` keys, a bulk delete LevelDB does itself), then replaces the marker; a crash in between leaves the old
 * marker and the next open deletes again. A format-5 marker beside an older one means an older engine rebuilt or
 * maintained the index since: the older marker is the true one. Anything else is rebuilt, unless read-only (then
 * `ready` is false and readers scan the directory; a read-only open reads an older index as is, ignoring its
 * counters). Returns the pending chunks per user.
 * Requires: no concurrent writer (called from open).
 */
export async function openCandidateIndex(cf: ColumnFamilies, writer: BatchWriter, readOnly: boolean): Promise<{ ready: boolean; pending: Map<string, number> }> {
  const v5 = (await cf.meta.get(META_INDEX_KEY)) !== undefined;
  const v3 = (await cf.meta.get(META_INDEX_V3_KEY)) !== undefined;
  const v2 = (await cf.meta.get(META_INDEX_V2_KEY)) !== undefined;
  if (readOnly) {
    const ready = v3 || v2 || v5;
    return { ready, pending: ready ? await countPending(cf) : new Map() };
  }
  if (v5 && !v3 && !v2) return { ready: true, pending: await countPending(cf) };
  if (v3 !== v2) {
    for (const tag of ['f', 'n']) await cf.candidates.clear({ gte: tag + SEP, lt: tag + '\u0001' });
    await writer.write(markerOps(cf));
    return { ready: true, pending: await countPending(cf) };
  }
  // Neither (format 1, interrupted rebuild), or both: an older engine rebuilt and then maintained the index
  // without knowing pending keys, which is a format-2 index, unless it left pending keys it did not maintain.
  await rebuildCandidateIndex(cf, writer);
  return { ready: true, pending: new Map() };
}
