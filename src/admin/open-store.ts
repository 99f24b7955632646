import { isRedisUrl } from '../backend/redis/redis-url.js';
import { AkashicStore } from '../engine/akashic-store.js';
import { destroyDatabase, refuseNonDirectory, requireDatabaseDir } from '../engine/database-dir.js';

export { destroyDatabase, refuseNonDirectory, requireDatabaseDir };

export interface ToolOpenOptions {
  /** Read-only commands pass true: no write is issued (the LevelDB lock is still taken). */
  readonly readOnly?: boolean;
  /**
   * Only commands that make a database (`load`, `demo`, salvage's target) pass true. Otherwise the path must
   * already hold a database, and a missing or wrong path is refused before LevelDB touches it (LevelDB creates
   * the directory and its LOCK file even when told not to create a database).
   */
  readonly create?: boolean;
}

/**
 * Opens a store directory (or a Redis URL, `redis://` or `redis+cluster://`) for a tool, with background GC off (a tool runs GC only when asked). The layout
 * settings the database was created with (block capacity, byte budget, session mixing) come from its engine meta.
 */
export async function openStoreForTool(path: string, opts: ToolOpenOptions = {}): Promise<AkashicStore> {
  // A Redis URL: many processes may hold the store at once, so a tool works while applications are writing.
  if (isRedisUrl(path)) return AkashicStore.open({ url: path, gc: { intervalMs: 0 }, readOnly: opts.readOnly ?? false });
  if (opts.create === true) await refuseNonDirectory(path);
  else await requireDatabaseDir(path);
  return AkashicStore.open({ path, gc: { intervalMs: 0 }, readOnly: opts.readOnly ?? false });
}
