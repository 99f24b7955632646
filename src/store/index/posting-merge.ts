import { AkashicError, corruption } from '../../errors.js';
import { decodeDirEntry } from '../../record/dir-entry.js';
import type { BatchOp, BatchWriter } from '../kv/batch-writer.js';
import { writeUserBatch } from '../write/fenced-write.js';
import { indexedChunk, parsePendingKey, pendingKey, postingOps, type IndexedChunk } from './candidate-index.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import type { TxnContext } from '../txn/txn-state.js';
import type { WriteLock } from '../kv/write-lock.js';
import { SEP, afterPrefix, dirKey } from '../kv/keys.js';
import type { PostingMergeError, PostingMergeReport } from '../../api/reports.js';

/**
 * The posting merge of the candidate index (docs/format.md, "Candidate index"): a commit indexes a new or changed
 * chunk with its recency keys and one pending key, and this merge later writes the postings of many pending chunks of
 * one user in one batch.
 *
 * Why: a chunk has up to 64 keywords, and writing a posting plus a counter update per keyword in the commit that
 * adds the chunk made every put ~140 LevelDB operations (and a read of 64 counters), which dominated ingest. Moving
 * them here keeps a put at a handful of keys. Database format 5 keeps no per-keyword counters at all: updating them
 * (a read-modify-write of ~5,000 keys per 128-chunk merge) was most of a merge, and recall never read them.
 * @internal
 */

/** Most pending chunks one merge batch posts. */
export const POSTING_MERGE_MAX = 1024;

/** Every pending key of one user, in key order (kind, then time). */
export function pendingRange(userId: string): { gte: string; lt: string } {
  return { gte: 'q' + SEP + userId + SEP, lt: afterPrefix('q', userId) };
}

/**
 * The batch that posts up to `max` pending chunks of `userId`: their postings go in, their pending keys go out, all
 * in the user's partition; `posted` is how many. REQUIRES: the store's write lock (the pending keys are read, then
 * replaced by the caller's write of `ops`).
 */
export async function stagePostingMerge(cf: ColumnFamilies, userId: string, max: number = POSTING_MERGE_MAX): Promise<{ ops: BatchOp[]; posted: number }> {
  const keys: string[] = [];
  for await (const k of cf.candidates.keys({ ...pendingRange(userId), limit: max })) keys.push(k);
  if (keys.length === 0) return { ops: [], posted: 0 };
  const pending = keys.map((k) => {
    const p = parsePendingKey(k);
    if (p === null || p.userId !== userId) throw corruption(`candidate index: malformed pending key ${JSON.stringify(k)}`);
    return p;
  });
  const dirKeys = pending.map((p) => dirKey(userId, p.sessionId, p.chunkId));
  const values = await cf.dir.getMany(dirKeys);
  const chunks: IndexedChunk[] = pending.map((p, i) => {
    const v = values[i];
    const c = indexedChunk(userId, p.sessionId, p.chunkId, v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(dirKeys[i])}`));
    // The pending key and the directory entry are written in one batch: a key that does not match its entry is damage.
    if (c === null || pendingKey(c) !== keys[i]) throw corruption(`candidate index: pending key ${JSON.stringify(keys[i])} does not match its directory entry`);
    return c;
  });
  return { ops: postingOps(cf.candidates, chunks), posted: keys.length };
}

/** Counts every user's pending chunks (at open). Work: O(pending keys), bounded by users × the store's `postingMergeAt`. */
export async function countPending(cf: ColumnFamilies): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const k of cf.candidates.keys({ gte: 'q' + SEP, lt: 'q\u0001' })) {
    const p = parsePendingKey(k);
    if (p === null) continue; // verify() names it
    out.set(p.userId, (out.get(p.userId) ?? 0) + 1);
  }
  return out;
}

/**
 * Queues a posting merge behind the writes already waiting for the write lock, for each user that reached the
 * store's `postingMergeAt` pending chunks (`TxnContext.onPending` calls `schedule` after a commit). Not awaited by
 * the write that triggered it; `close()` drains the lock, so a queued merge finishes before the store closes. A
 * failed merge changes nothing (its batch is atomic) and the pending keys stay valid, so readers stay exact; it is
 * counted and its error kept (`report`, shown by `stats()`), and the user's next commit schedules it again. The
 * usual causes: a write error, which has latched the store read-only, or index damage, which verify() names.
 * @internal
 */
export class PostingMerger {
  readonly #lock: WriteLock;
  readonly #writer: BatchWriter;
  readonly #ctx: TxnContext;
  readonly #queued = new Set<string>();
  #failures = 0;
  #lastError: PostingMergeError | null = null;

  constructor(lock: WriteLock, writer: BatchWriter, ctx: TxnContext) {
    this.#lock = lock;
    this.#writer = writer;
    this.#ctx = ctx;
  }

  schedule(users: readonly string[]): void {
    if (this.#ctx.options.readOnly) return;
    for (const user of users) {
      if ((this.#ctx.pendingPostings.get(user) ?? 0) < this.#ctx.options.postingMergeAt || this.#queued.has(user)) continue;
      this.#queued.add(user);
      void this.#lock
        .run(() => this.#merge(user))
        .catch((err: unknown) => {
          this.#failures++;
          this.#lastError = {
            userId: user,
            code: err instanceof AkashicError ? err.code : 'AKASHIC_IO',
            message: err instanceof Error ? err.message : String(err),
            at: Date.now(),
          };
        })
        .finally(() => this.#queued.delete(user));
    }
  }

  /** Pending chunks, failed merges since open and the last failure (`stats().postingMerge`). */
  report(): PostingMergeReport {
    let pendingChunks = 0;
    for (const n of this.#ctx.pendingPostings.values()) pendingChunks += n;
    return { pendingChunks, failures: this.#failures, lastError: this.#lastError };
  }

  /** Posts every pending chunk of `userId`. REQUIRES: the write lock. */
  async #merge(userId: string): Promise<void> {
    const pending = this.#ctx.pendingPostings;
    for (;;) {
      if (this.#writer.failure !== null) return;
      // One batch of the user's partition, fenced: when another process merged (or wrote) the user meanwhile, the
      // merge reads the pending keys again (a duplicate merge of the same keys cannot land twice).
      let n = 0;
      await writeUserBatch(this.#ctx, userId, async () => {
        const staged = await stagePostingMerge(this.#ctx.cf, userId);
        n = staged.posted;
        return staged.ops;
      });
      const left = (pending.get(userId) ?? 0) - n;
      if (left > 0) pending.set(userId, left);
      else pending.delete(userId);
      if (n < POSTING_MERGE_MAX) return;
    }
  }
}
