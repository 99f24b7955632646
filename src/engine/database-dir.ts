/** Checks of a database path made before LevelDB touches it (LevelDB creates a directory and LOCK even when told not to create), and deleting a database. */
import { readdir, rm, stat } from 'node:fs/promises';
import { FRAMES_DIR } from '../store/file-frame-store.js';
import { join } from 'node:path';
import { classicLevel } from './classic-level-module.js';
import { AkashicError } from '../errors.js';
import { destroyError } from '../store/kv/level-errors.js';

/**
 * Fails with AKASHIC_NOT_FOUND, touching nothing, unless `path` is a directory holding a LevelDB database
 * (its CURRENT file; with `damaged`, any file, since a repair can rebuild CURRENT). `what` names the path in the
 * message (e.g. "salvage source").
 */
export async function requireDatabaseDir(path: string, what = 'database', opts: { readonly damaged?: boolean } = {}): Promise<void> {
  await refuseNonDirectory(path, what);
  const kind = await kindOf(path);
  if (kind === 'missing') throw new AkashicError('AKASHIC_NOT_FOUND', `no ${what} at ${path}: the directory does not exist`);
  const empty = (await readdir(path)).length === 0;
  if (opts.damaged === true ? empty : (await kindOf(join(path, 'CURRENT'))) !== 'file') {
    throw new AkashicError('AKASHIC_NOT_FOUND', `no ${what} at ${path}: the directory is ${empty ? 'empty' : 'not an Akashic database (no CURRENT file)'}`);
  }
}

/** Fails with AKASHIC_INVALID_ARGUMENT when `path` exists and is not a directory. */
export async function refuseNonDirectory(path: string, what = 'database'): Promise<void> {
  const kind = await kindOf(path);
  if (kind === 'file') throw new AkashicError('AKASHIC_NOT_FOUND', `${path} is a file, not a ${what} directory`);
}

async function kindOf(path: string): Promise<'missing' | 'file' | 'dir'> {
  try {
    return (await stat(path)).isDirectory() ? 'dir' : 'file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') throw new AkashicError('AKASHIC_NOT_FOUND', `${path}: a parent of this path is a file, not a directory`, { cause: err });
    throw new AkashicError('AKASHIC_IO', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
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
    await (await classicLevel()).destroy(path);
  } catch (err) {
    throw destroyError(err, path);
  }
  // The engine's frame files (database format 4) live beside LevelDB's.
  await rm(join(path, FRAMES_DIR), { recursive: true, force: true });
}
