import { AkashicStore } from '../engine/akashic-store.js';

export interface ToolOpenOptions {
  /** Read-only commands pass true: no write is issued (the LevelDB lock is still taken). */
  readonly readOnly?: boolean;
}

/**
 * Opens a store directory for a tool, with background GC off (a tool runs GC only when asked) and with the
 * layout settings the database was created with.
 *
 * Why reopen: the engine records blockCapacity, blockMaxBytes and crossSessionBlocks in its engine meta when
 * the database is created, but `AkashicStore.open` lays out blocks by the options it is given (defaults when
 * absent), not by the meta. A tool knows no better than the meta, so when they differ it reopens with the
 * meta's values; otherwise `akashic gc` or `akashic load` on a database created with, say, 4 slots per block
 * would pack 16.
 */
export async function openStoreForTool(path: string, opts: ToolOpenOptions = {}): Promise<AkashicStore> {
  const base = { path, gc: { intervalMs: 0 }, readOnly: opts.readOnly ?? false };
  const store = await AkashicStore.open(base);
  const meta = store.core.meta;
  const o = store.options;
  if (meta.blockCapacity === o.blockCapacity && meta.blockMaxBytes === o.blockMaxBytes && meta.crossSessionBlocks === o.crossSessionBlocks) {
    return store;
  }
  await store.close();
  return AkashicStore.open({
    ...base,
    blockCapacity: meta.blockCapacity,
    blockMaxBytes: meta.blockMaxBytes,
    crossSessionBlocks: meta.crossSessionBlocks,
  });
}
