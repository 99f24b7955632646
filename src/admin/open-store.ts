import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { AkashicStore } from '../engine/akashic-store.js';
import { refuseNonDirectory, requireDatabaseDir } from '../engine/database-dir.js';
import { AkashicError } from '../errors.js';

export { refuseNonDirectory, requireDatabaseDir };

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
 * Opens a store directory for a tool, with background GC off (a tool runs GC only when asked). The layout
 * settings the database was created with (block capacity, byte budget, session mixing) come from its engine meta.
 */
export async function openStoreForTool(path: string, opts: ToolOpenOptions = {}): Promise<AkashicStore> {
  if (opts.create === true) await refuseNonDirectory(path);
  else await requireDatabaseDir(path);
  return AkashicStore.open({ path, gc: { intervalMs: 0 }, readOnly: opts.readOnly ?? false });
}

/**
 * Deletes the LevelDB database at `path` so that a tool can recreate it (the demo's `--force`). LevelDB's own
 * destroy takes the database's lock first, so a database another process (or this one) holds open fails with
 * AKASHIC_LOCKED and nothing is deleted. Only a directory that holds a database is touched, and only the
 * database's files go; files LevelDB does not own stay.
 */
export async function destroyDatabase(path: string): Promise<void> {
  await requireDatabaseDir(path);
  try {
    await ClassicLevel.destroy(path);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'LEVEL_LOCKED') {
      throw new AkashicError('AKASHIC_LOCKED', `database is locked by another process or already open in this one (lock file ${join(path, 'LOCK')}); nothing was deleted`, { cause: err });
    }
    throw new AkashicError('AKASHIC_IO', `cannot delete the database at ${path}: ${(err as Error).message}`, { cause: err });
  }
}
