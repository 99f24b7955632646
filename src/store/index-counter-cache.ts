import type { IndexStats } from '../record/index-records.js';

/** Most counters kept (~100 bytes each); past it the longest-unwritten are forgotten and reread when next needed. */
export const INDEX_COUNTER_CACHE_MAX = 65_536;

/**
 * The candidate index's counters (`n` and `f` keys, candidate-index.ts) as last committed, so that a posting merge
 * or a commit does not read back what an earlier batch of this process wrote: a merge of 128 chunks adjusts ~5,000
 * keyword counters, and most of them were written by an earlier merge of the same user.
 *
 * Exact by construction: every counter reaches LevelDB through `indexOps`, whose caller publishes the values its
 * batch wrote only after that batch landed; a batch that wrote the index family in another way (purge's raw
 * deletions) or failed clears the cache (a failed batch also latches the store read-only). Holds a counter's
 * committed value, or null for "no such key". Readers never use it: they read from snapshots.
 * REQUIRES: the write lock for every call.
 * @internal
 */
export class IndexCounterCache {
  readonly #values = new Map<string, IndexStats | null>();

  /** The committed value (null: absent), or undefined when not known. */
  get(key: string): IndexStats | null | undefined {
    return this.#values.get(key);
  }

  /** After a batch landed: the counters it wrote (null: deleted). */
  publish(written: ReadonlyMap<string, IndexStats | null>): void {
    for (const [key, value] of written) {
      this.#values.delete(key); // re-inserted last: the map's order is the order of last writes
      this.#values.set(key, value);
    }
    if (this.#values.size > INDEX_COUNTER_CACHE_MAX) {
      let excess = this.#values.size - INDEX_COUNTER_CACHE_MAX;
      for (const key of this.#values.keys()) {
        if (excess-- <= 0) break;
        this.#values.delete(key);
      }
    }
  }

  clear(): void {
    this.#values.clear();
  }
}
