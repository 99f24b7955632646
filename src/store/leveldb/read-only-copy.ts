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
  const holders = await lockHolders(source);
  if (holders.length > 0) throw lockedError(source, holders);
}

/** Whether a process (this one included) holds the LevelDB directory's lock; false where /proc/locks is missing. */
export async function isLocked(source: string): Promise<boolean> {
  return (await lockHolders(source)).length > 0;
}

/**
 * The ids of the processes holding the LevelDB directory's lock (this one's included); empty when nobody holds
 * it, or when that cannot be told (no /proc/locks: not Linux).
 */
export async function lockHolders(source: string): Promise<number[]> {
  let ino: number;
  try {
    ino = (await stat(join(source, 'LOCK'))).ino;
  } catch {
    return []; // no LOCK file: nobody has it open
  }
  let locks: string;
  try {
    locks = await readFile('/proc/locks', 'utf8');
  } catch {
    return [];
  }
  // Lines look like `1: POSIX  ADVISORY  WRITE 4242 08:01:1234567 0 EOF`; the sixth field ends with the inode.
  const pids: number[] = [];
  for (const line of locks.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const id = fields[5]?.split(':');
    const pid = Number(fields[4]);
    if (fields[1] === 'POSIX' && id !== undefined && Number(id[2]) === ino && Number.isSafeInteger(pid) && !pids.includes(pid)) pids.push(pid);
  }
  return pids;
}

/**
 * AKASHIC_LOCKED for the database at `source`, naming the holder where it is known (`holders` from lockHolders;
 * empty when unknown) and the lock file. The one wording of the lock error: LevelDB's own refusal at open is
 * rewritten into it (AkashicStore.open), with LevelDB's error as `cause`.
 */
export function lockedError(source: string, holders: readonly number[], cause?: unknown): AkashicError {
  const lock = join(source, 'LOCK');
  const others = holders.filter((pid) => pid !== process.pid);
  const who =
    others.length > 0
      ? `locked by process ${others.join(', ')}`
      : holders.length > 0
        ? 'already open in this process'
        : 'locked by another process or already open in this one';
  return new AkashicError('AKASHIC_LOCKED', `database is ${who} (lock file ${lock})`, cause === undefined ? undefined : { cause });
}
