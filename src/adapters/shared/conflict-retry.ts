import { isAkashicError } from '../../errors.js';

/** Attempts of a read-modify-write that lost a compare-and-swap to another writer. */
export const CONFLICT_ATTEMPTS = 5;

/**
 * Runs a read-modify-write (scan the directory, then one atomic `write` with `expectVersion`s) and repeats it from
 * the scan when it lost to a concurrent writer (AKASHIC_CONFLICT). Other errors, and the last conflict, propagate.
 * @internal
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = CONFLICT_ATTEMPTS): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !isAkashicError(err, 'AKASHIC_CONFLICT')) throw err;
    }
  }
}
