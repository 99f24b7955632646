import { decodeAllocator, encodeAllocator } from '../../record/engine-records.js';
import type { BatchWriter } from '../kv/batch-writer.js';
import type { Family } from '../kv/column-families.js';
import { ALLOC_NEXT_KEY, GLOBAL_PARTITION } from '../kv/keys.js';
import { fenceConflict, isFenceConflict, type PartitionFencing } from '../kv/partition-fencing.js';

/** Block ids a process takes from the shared allocator at a time. */
export const BLOCK_ID_RANGE = 1024;

/**
 * Block ids: unique in the whole database (a frame file addresses a block by id alone), never reused, handed out
 * increasing from ranges a process takes from the shared record `alloc/next` (the only record of the global
 * partition a commit may need). `take` is synchronous (block placement calls it between awaits); `secure` runs
 * before a commit's batch and, when ids beyond the process's range were taken, first writes `alloc/next` past them
 * plus a new range, in a batch of its own. So no committed block ever has an id the allocator could hand out again.
 * Ids taken by a transaction that then failed, and the rest of a range when the process ends, are gaps: harmless.
 *
 * Several processes (a partitioned backend with fencing): each range is taken with a fenced batch of the global
 * partition; a process that lost the race gets AKASHIC_CONFLICT from `secure`, rereads the record (`reload`) and its
 * commit is staged again with fresh ids. REQUIRES: the store's write lock for every method but `take`/`reserve`,
 * which are called under it too.
 */
export class BlockIdAllocator {
  readonly #alloc: Family;
  readonly #writer: BatchWriter;
  readonly #fencing: PartitionFencing | null;
  /** The next id this process hands out. */
  #next: number;
  /** Ids below this are recorded as taken in `alloc/next` (this process's range ends here). */
  #limit: number;
  /** The global partition's version when `alloc/next` was last read or written by this process (fencing only). */
  #version = 0;
  /** Bumped by every `reload`: ids handed out before it may belong to another process's range. */
  #epoch = 0;

  private constructor(alloc: Family, writer: BatchWriter, fencing: PartitionFencing | null) {
    this.#alloc = alloc;
    this.#writer = writer;
    this.#fencing = fencing;
    this.#next = 1;
    this.#limit = 1;
  }

  /** Reads `alloc/next` (1 in a new database). No range is taken until a commit needs one. */
  static async open(alloc: Family, writer: BatchWriter, fencing: PartitionFencing | null): Promise<BlockIdAllocator> {
    const a = new BlockIdAllocator(alloc, writer, fencing);
    await a.reload();
    return a;
  }

  /** The next id this process would hand out: every id below it is taken (frame-file retirement's bound). */
  get next(): number {
    return this.#next;
  }

  /** Changes whenever the ids handed out so far may have become invalid (`reload`); a transaction records it first. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Hands out one id. */
  take(): number {
    return this.#next++;
  }

  /** Hands out `n` consecutive ids (blocks built outside a transaction: GC workers); returns the first. */
  reserve(n: number): number {
    const first = this.#next;
    this.#next += n;
    return first;
  }

  /**
   * Makes every id handed out so far recorded as taken before a batch that uses them is written; `epoch` is the
   * allocator's epoch when the transaction began. REQUIRES: the write lock. Rejects with AKASHIC_CONFLICT when the
   * transaction's ids may be another process's (another process took a range meanwhile: the allocator rereads its
   * record and the transaction must be staged again with fresh ids).
   */
  async secure(epoch: number): Promise<void> {
    if (epoch !== this.#epoch) throw fenceConflict('block ids were handed out from a range another process took; staging again');
    if (this.#next <= this.#limit) return;
    const limit = this.#next + BLOCK_ID_RANGE;
    const op = { type: 'put' as const, sublevel: this.#alloc, key: ALLOC_NEXT_KEY, value: encodeAllocator(limit) };
    if (this.#fencing === null) await this.#writer.write([op]);
    else {
      try {
        await this.#writer.write([op], { partition: GLOBAL_PARTITION, version: this.#version });
      } catch (err) {
        if (isFenceConflict(err)) await this.reload();
        throw err;
      }
      this.#version++;
    }
    this.#limit = limit;
  }

  /**
   * After a conflict: forgets this process's range and continues from what `alloc/next` says now. Ids handed out
   * and not yet secured are dropped with the transaction that took them. REQUIRES: the write lock.
   */
  async reload(): Promise<void> {
    // The version first: a write landing between the two reads makes the next fenced write fail (safe), never pass.
    if (this.#fencing !== null) this.#version = await this.#fencing.partitionVersion(GLOBAL_PARTITION);
    const stored = await readNext(this.#alloc);
    this.#next = stored;
    this.#limit = stored;
    this.#epoch++;
  }
}

async function readNext(alloc: Family): Promise<number> {
  const v = await alloc.get(ALLOC_NEXT_KEY);
  return v === undefined ? 1 : decodeAllocator(v, 'allocator state');
}
