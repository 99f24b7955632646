/**
 * Reads of one user that span several backend commands, made consistent on a backend without point-in-time
 * snapshots (Redis). Such a read (candidate index, then directory; directory, then block frames) can see a commit
 * of another process land between two of its commands: a chunk deleted or purged after its index entry was read,
 * a block released by GC or relocation after the directory pointed into it. The read then finds what looks like
 * damage (AKASHIC_CORRUPTION) although the store is whole.
 *
 * The read is retried instead, and damage is reported only when it is stable: after a failure, the user's
 * partition version is read; the read runs again; if it fails again and the version did not move in between, no
 * commit of the user landed during that attempt, so what it found is really in the store. Costs nothing when the
 * read succeeds. Each commit is one atomic step of the user's partition, so a read that saw none land in between
 * saw one committed state.
 */
import { isAkashicError } from '../../errors.js';

/** Attempts after which a read that keeps meeting commits reports what it found. */
export const MAX_CONSISTENT_READ_ATTEMPTS = 8;

/**
 * Runs `read` (a read of `userId`'s partition only) until it succeeds or fails the same way with no commit of the
 * user in between. `version` reads the user's partition version; null (no other process can write: LevelDB,
 * memory-level, whose snapshots are point-in-time) runs `read` once.
 */
export async function readConsistent<T>(version: ((userId: string) => Promise<string>) | null, userId: string, read: () => Promise<T>): Promise<T> {
  if (version === null) return read();
  let before: string | null = null;
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (!isAkashicError(err, 'AKASHIC_CORRUPTION') || attempt === MAX_CONSISTENT_READ_ATTEMPTS) throw err;
      const now = await version(userId);
      if (now === before) throw err;
      before = now;
    }
  }
}
