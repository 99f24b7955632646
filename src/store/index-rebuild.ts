import { decodeDirEntry } from '../record/dir-entry.js';
import { encodeIndexStats, INDEX_PRESENT } from '../record/index-records.js';
import { dfKey, entryKeys, indexedChunk, indexKeywords, statsKey } from './candidate-index.js';
import type { ColumnFamilies } from './column-families.js';
import { META_INDEX_KEY, parseDirKey } from './keys.js';
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
    for (const key of entryKeys(c)) keys.push(key);
    const kws = indexKeywords(c.keywords);
    bump(statsKey(c.userId, c.kind), 1, kws.length);
    for (const w of kws) bump(dfKey(c.userId, c.kind, w), 1, 0);
    if (keys.length >= REBUILD_BATCH_OPS) await flushKeys();
  }
  await flushKeys();
  await flushCounters();
  await writer.write([{ type: 'put', sublevel: cf.meta, key: META_INDEX_KEY, value: INDEX_PRESENT }]);
  return { chunks };
}
