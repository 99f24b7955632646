import { decodeDirEntry } from '../record/dir-entry.js';
import { encodeIndexStats, INDEX_PRESENT } from '../record/index-records.js';
import { dfKey, entryKeys, indexedChunk, indexKeywords, statsKey } from './candidate-index.js';
import { countPending } from './posting-merge.js';
import type { ColumnFamilies } from './column-families.js';
import { META_INDEX_KEY, META_INDEX_V2_KEY, parseDirKey } from './keys.js';
import type { BatchWriter } from './batch-writer.js';

/** Index operations per batch while rebuilding. */
const REBUILD_BATCH_OPS = 20_000;

/**
 * Builds the candidate index from the directory (a database written before the index existed, or a rebuild that a
 * crash interrupted): clears the `cidx` family, walks the directory once in key order and writes the entry keys in
 * batches, then each user's counters, then the marker `meta/cidx` last — so a crash at any point leaves the marker
 * absent and the next writable open starts over.
 *
 * Requires: no concurrent writer (called from open, before the store is handed out).
 * Memory: one batch of keys plus the counters of one user (its distinct keywords), since the directory is in user
 * order.
 */
export async function rebuildCandidateIndex(cf: ColumnFamilies, writer: BatchWriter): Promise<{ chunks: number }> {
  // Clearing is a bulk delete LevelDB does itself (abstract-level's clear); the rebuild then writes through the
  // writer, so a write error latches the store as any other write does.
  await cf.candidates.clear();
  let keys: string[] = [];
  let chunks = 0;
  let user: string | null = null;
  let counters = new Map<string, { docs: number; keywords: number }>();
  const flushKeys = async (): Promise<void> => {
    if (keys.length === 0) return;
    await writer.write(keys.map((key) => ({ type: 'put' as const, sublevel: cf.candidates, key, value: INDEX_PRESENT })));
    keys = [];
  };
  const flushCounters = async (): Promise<void> => {
    const ops = [...counters].map(([key, v]) => ({ type: 'put' as const, sublevel: cf.candidates, key, value: encodeIndexStats(v) }));
    for (let i = 0; i < ops.length; i += REBUILD_BATCH_OPS) await writer.write(ops.slice(i, i + REBUILD_BATCH_OPS));
    counters = new Map();
  };
  const bump = (key: string, docs: number, kws: number): void => {
    const c = counters.get(key);
    if (c === undefined) counters.set(key, { docs, keywords: kws });
    else {
      c.docs += docs;
      c.keywords += kws;
    }
  };
  for await (const [k, v] of cf.dir.iterator()) {
    const p = parseDirKey(k);
    if (p === null) continue; // verify() reports malformed keys
    const c = indexedChunk(p.userId, p.sessionId, p.chunkId, decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`));
    if (c === null) continue;
    if (p.userId !== user) {
      await flushCounters();
      user = p.userId;
    }
    chunks++;
    for (const key of entryKeys(c, true)) keys.push(key);
    const kws = indexKeywords(c.keywords);
    bump(statsKey(c.userId, c.kind), 1, kws.length);
    for (const w of kws) bump(dfKey(c.userId, c.kind, w), 1, 0);
    if (keys.length >= REBUILD_BATCH_OPS) await flushKeys();
  }
  await flushKeys();
  await flushCounters();
  await writer.write([
    { type: 'put', sublevel: cf.meta, key: META_INDEX_KEY, value: INDEX_PRESENT },
    { type: 'del', sublevel: cf.meta, key: META_INDEX_V2_KEY },
  ]);
  return { chunks };
}

/**
 * Readies the candidate index at open: a format-3 index is used as is; a format-2 one (every chunk posted, no
 * pending keys) is valid format 3 and only changes marker; anything else is rebuilt, unless read-only (then
 * `ready` is false and readers scan the directory). A writable open always drops the format-2 marker (see
 * `META_INDEX_V2_KEY`). Returns the pending chunks per user.
 * Requires: no concurrent writer (called from open).
 */
export async function openCandidateIndex(cf: ColumnFamilies, writer: BatchWriter, readOnly: boolean): Promise<{ ready: boolean; pending: Map<string, number> }> {
  const v3 = (await cf.meta.get(META_INDEX_KEY)) !== undefined;
  const v2 = (await cf.meta.get(META_INDEX_V2_KEY)) !== undefined;
  if (readOnly) return { ready: v3 || v2, pending: v3 || v2 ? await countPending(cf) : new Map() };
  if (v3 && !v2) return { ready: true, pending: await countPending(cf) };
  if (v2 && !v3) {
    await writer.write([
      { type: 'put', sublevel: cf.meta, key: META_INDEX_KEY, value: INDEX_PRESENT },
      { type: 'del', sublevel: cf.meta, key: META_INDEX_V2_KEY },
    ]);
    return { ready: true, pending: new Map() };
  }
  // Neither (format 1, interrupted rebuild), or both: an older engine rebuilt and then maintained the index
  // without knowing pending keys, which is a format-2 index, unless it left pending keys it did not maintain.
  await rebuildCandidateIndex(cf, writer);
  return { ready: true, pending: new Map() };
}
