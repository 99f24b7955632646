import { copyFile, link, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { AkashicError } from '../../errors.js';

/**
 * A private working copy of a LevelDB directory, so that reading it never changes one byte of the source.
 *
 * Why: every LevelDB open writes. It replays the write-ahead log into a new table, writes a new MANIFEST and log,
 * deletes the old ones, rotates its LOG, and may compact — and a damaged log is replayed lossily and then deleted,
 * destroying the evidence. Read-only commands (verify, dump, inspect, stats, blocks, report, salvage's source) open
 * this copy instead.
 *
 * Cost: table files (`.ldb`/`.sst`, the bulk of a database) are immutable in LevelDB — never modified, only
 * deleted — so they are hard-linked, O(number of files); only the small mutable files (CURRENT, MANIFEST, the
 * logs) are copied. The copy lives beside the source (a hidden `.akashic-readonly-*` directory in its parent, so
 * links stay on one file system); when the parent is not writable it goes to the OS temp directory, and when links
 * fail there (another file system) the tables are copied — then the cost is the database's size.
 *
 * The source's LOCK is honoured: a database another process (or this one) holds open is refused with
 * AKASHIC_LOCKED, as opening it directly would be (Linux: LevelDB's POSIX lock is looked up in /proc/locks; where
 * that file does not exist the check is skipped).
 */
export interface WorkingCopy {
  /** The copy's directory, to open with LevelDB. */
  readonly path: string;
  /** Removes the copy (close the database first). */
  remove(): Promise<void>;
}

const IMMUTABLE = /\.(ldb|sst)$/;
// LOCK is the source's own; LOG* are LevelDB's text logs, which the copy writes afresh.
const SKIPPED = /^(LOCK|LOG|LOG\.old)$/;

export async function makeWorkingCopy(source: string): Promise<WorkingCopy> {
  await refuseIfLocked(source);
  let dir: string;
  try {
    dir = await mkdtemp(join(dirname(resolve(source)), `.akashic-readonly-${basename(resolve(source))}-`));
  } catch {
    dir = await mkdtemp(join(tmpdir(), 'akashic-readonly-'));
  }
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  // A writer that started after the lock check may delete a file between listing and linking: list again.
  for (let attempt = 0; ; attempt++) {
    try {
      const copy = join(dir, `db${attempt}`);
      await copyFiles(source, copy);
      return { path: copy, remove };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 2) {
        await remove();
        throw new AkashicError('AKASHIC_IO', `cannot make a read-only working copy of ${source}: ${(err as Error).message}`, { cause: err });
      }
    }
  }
}

async function copyFiles(source: string, copy: string): Promise<void> {
  await mkdir(copy);
  for (const name of await readdir(source)) {
    if (SKIPPED.test(name)) continue;
    const from = join(source, name);
    if (!(await stat(from)).isFile()) continue;
    const to = join(copy, name);
    if (IMMUTABLE.test(name)) {
      try {
        await link(from, to);
        continue;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
        // another file system, or links not allowed: copy instead
      }
    }
    await copyFile(from, to);
  }
}

/** Fails with AKASHIC_LOCKED when a process (this one included) holds the LevelDB directory's lock. */
export async function refuseIfLocked(source: string): Promise<void> {
  if (await isLocked(source)) {
    // Same wording as an in-place open that LevelDB refuses (store/kv/level-errors.ts): the holder may be this process.
    throw new AkashicError('AKASHIC_LOCKED', `database is locked by another process or already open in this one (lock file ${join(source, 'LOCK')})`);
  }
}

/** Whether a process (this one included) holds the LevelDB directory's lock; false where /proc/locks is missing. */
export async function isLocked(source: string): Promise<boolean> {
  let ino: number;
  try {
    ino = (await stat(join(source, 'LOCK'))).ino;
  } catch {
    return false; // no LOCK file: nobody has it open
  }
  let locks: string;
  try {
    locks = await readFile('/proc/locks', 'utf8');
  } catch {
    return false;
  }
  // Lines look like `1: POSIX  ADVISORY  WRITE 4242 08:01:1234567 0 EOF`; the sixth field ends with the inode.
  for (const line of locks.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const id = fields[5]?.split(':');
    if (fields[1] === 'POSIX' && id !== undefined && Number(id[2]) === ino) return true;
  }
  return false;
}
