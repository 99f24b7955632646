import { encodeAccounting } from '../../record/accounting.js';
import { encodeBlockInfo } from '../../record/block-info.js';
import { decodeDirEntry, encodeDirEntry } from '../../record/dir-entry.js';
import { IndexDelta, indexOps, indexedChunk, pendingKey, sameIndexed, type IndexedChunk } from '../index/candidate-index.js';
import { accountingKey, blockInfoKey, parseDirKey } from '../kv/keys.js';
import type { Fence } from '../kv/partition-fencing.js';
import type { DeferredSync } from '../frame-store.js';
import type { ReadCounters } from '../write/user-states.js';
import { addUsageRows, type ModelUsageRow } from '../../record/model-usage-rows.js';
import type { BatchOp } from '../kv/batch-writer.js';
import { settleFrames, type BlockPlacement } from './block-placement.js';
import { setBlockInfo, type TxnState } from './txn-state.js';

/** A transaction's batch, built and ready to write (`prepareCommit`), and what to publish once it has landed. */
export interface PreparedCommit {
  readonly ops: readonly BatchOp[];
  /** The batch's precondition on a fenced backend (the user's partition at the version the staging read). */
  readonly fence: Fence | undefined;
  readonly pending: ReadonlyMap<string, number>;
  /** The reads of the user the batch persists. */
  readonly reads: ReadCounters;
  /** The model usage of the user the batch persists. */
  readonly usage: readonly ModelUsageRow[];
}

/**
 * The commit half of a transaction: `prepareCommit`, then the batch is written (alone, `commitTxn`, or with other
 * users' batches, `group-commit.ts`), then `publishCommit` — or `abortCommit` when the write failed.
 * REQUIRES: the write lock throughout.
 */
export async function commitTxn(s: TxnState, placement: BlockPlacement, onBatch: () => void): Promise<void> {
  const prepared = await prepareCommit(s, placement);
  onBatch();
  let version: string | undefined;
  try {
    version = await s.ctx.writer.write(prepared.ops, prepared.fence);
  } catch (err) {
    abortCommit(s, prepared);
    throw err;
  }
  await publishCommit(s, placement, prepared, version);
}

/**
 * Places the staged records (`placement`), releases emptied sealed blocks and retired ones, and builds the single
 * batch — frames, block infos, directory entries, the candidate-index delta and the user's accounting — every key
 * in the transaction's user's partition. Secures the block ids it took (`BlockIdAllocator.secure`, a batch of the
 * global partition of its own when a new range is needed) and writes the frames kept outside the batch. After it,
 * the batch must be written and then published or aborted.
 */
export async function prepareCommit(s: TxnState, placement: BlockPlacement, deferred?: DeferredSync): Promise<PreparedCommit> {
  const cf = s.ctx.cf;
  await placement.place(s);
  // While the placed frames compress on the thread pool: the directory entries and the candidate-index delta, which
  // do not depend on the frames' compressed sizes. The rest of the batch does (block infos, accounting).
  const dirOps: BatchOp[] = [];
  for (const [key, entry] of s.dirs) {
    if (entry === null) dirOps.push({ type: 'del', sublevel: cf.dir, key });
    else dirOps.push({ type: 'put', sublevel: cf.dir, key, value: encodeDirEntry(entry) });
  }
  const index = await stageIndex(s);
  await settleFrames(s);
  for (const info of [...s.infos.values()]) {
    const retired = s.retired.has(info.blockId);
    if (retired && info.state === 'released') continue;
    if ((info.state === 'sealed' && info.liveSlots === 0) || retired) {
      s.frames.release(info.blockId, info.frameSlots.length);
      setBlockInfo(s, info, { ...info, state: 'released', liveSlots: 0, liveBytes: 0, releasedAt: s.now });
      s.acct.blocksReleased++;
      s.released.push(info.blockId);
    }
  }
  for (const op of dirOps) s.ops.push(op);
  for (const op of index.ops) s.ops.push(op);
  const pending = index.pending;
  for (const info of s.infos.values()) {
    const key = blockInfoKey(info.userId, info.blockId);
    if (s.retired.get(info.blockId)?.forget === true) s.ops.push({ type: 'del', sublevel: cf.blockInfo, key });
    else s.ops.push({ type: 'put', sublevel: cf.blockInfo, key, value: encodeBlockInfo(info) });
  }
  // Reads bump the user's read counters, and model calls note their usage, without the write lock: the batch
  // persists what they say now.
  const reads = s.ctx.users.pendingReads(s.userId);
  const usage = s.ctx.users.pendingUsage(s.userId);
  const acct = {
    ...s.acct,
    retrievals: s.acct.retrievals + reads.retrievals,
    retrievalBlocks: s.acct.retrievalBlocks + reads.retrievalBlocks,
    modelUsage: addUsageRows(s.acct.modelUsage, usage),
  };
  if (s.dropAccounting) s.ops.push({ type: 'del', sublevel: cf.alloc, key: accountingKey(s.userId) });
  else s.ops.push({ type: 'put', sublevel: cf.alloc, key: accountingKey(s.userId), value: encodeAccounting(acct) });
  s.ctx.writer.check();
  await s.ctx.ids.secure(s.idEpoch);
  try {
    await s.frames.prepare(s.ops, deferred);
  } catch (err) {
    throw s.ctx.writer.fail(err);
  }
  // Pending counts grow before the batch can land and shrink only after it has (publishPending), so a reader's
  // snapshot never holds more pending keys of a user than the count says (readCandidates relies on it).
  addPending(s, pending, 1);
  const fence = s.ctx.users.fenced ? { partition: s.userId, version: s.version } : undefined;
  return { ops: s.ops, fence, pending, reads, usage };
}

/** The prepared batch was not written (or failed): takes back what `prepareCommit` counted ahead. */
export function abortCommit(s: TxnState, prepared: PreparedCommit): void {
  addPending(s, prepared.pending, -1);
}

/**
 * After the prepared batch landed: the context learns what it changed (caches, accounting, pending postings);
 * `version` is the user's partition version a fenced batch left.
 */
export async function publishCommit(s: TxnState, placement: BlockPlacement, prepared: PreparedCommit, version?: string): Promise<void> {
  await s.frames.committed();
  const users = s.ctx.users;
  users.readsPersisted(s.userId, prepared.reads);
  s.acct.retrievals += prepared.reads.retrievals;
  s.acct.retrievalBlocks += prepared.reads.retrievalBlocks;
  users.usagePersisted(s.userId, prepared.usage);
  s.acct.modelUsage = addUsageRows(s.acct.modelUsage, prepared.usage);
  if (s.dropAccounting) users.forget(s.userId);
  else users.committed(s.userId, s.acct, version);
  publishOpenBlocks(s, placement);
  for (const info of s.infos.values()) s.ctx.reclaimable.note(info, s.retired.get(info.blockId)?.forget === true);
  publishPending(s, prepared.pending);
  if (s.released.length > 0) s.ctx.onReleased(s.released);
}

/** After a committed batch: the context's open-block cache learns what this batch wrote. */
function publishOpenBlocks(s: TxnState, placement: BlockPlacement): void {
  const { openRefs, openInfos } = s.ctx;
  if (s.rawAlloc || s.retired.size > 0) {
    openRefs.clear();
    openInfos.clear();
    return;
  }
  for (const info of s.infos.values()) {
    if (info.state === 'open') openInfos.set(info.blockId, info);
    else openInfos.delete(info.blockId);
  }
  for (const [k, id] of placement.openRefs) openRefs.set(k, id);
  // Bounded: one entry per open block; a store with very many users forgets them all at once and rereads.
  if (openRefs.size > 100_000 || openInfos.size > 100_000) {
    openRefs.clear();
    openInfos.clear();
  }
}

/**
 * The candidate index follows the directory: every entry this commit writes is compared with the committed one,
 * and the difference (entry keys) is returned for the batch. Entries that only moved (relocation, GC) differ in
 * nothing the index holds, so they add nothing.
 */
async function stageIndex(s: TxnState): Promise<{ ops: BatchOp[]; pending: ReadonlyMap<string, number> }> {
  const none = { ops: [], pending: new Map<string, number>() };
  if (s.dirs.size === 0) return none;
  const unread = [...s.dirs.keys()].filter((k) => !s.original.has(k));
  const values = unread.length === 0 ? [] : await s.ctx.cf.dir.getMany(unread);
  unread.forEach((k, i) => {
    const v = values[i];
    s.original.set(k, v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`));
  });
  const changes: { before: IndexedChunk | null; after: IndexedChunk | null }[] = [];
  for (const [key, entry] of s.dirs) {
    const p = parseDirKey(key);
    if (p === null) continue;
    const before = indexedChunk(p.userId, p.sessionId, p.chunkId, s.original.get(key) ?? null);
    const after = indexedChunk(p.userId, p.sessionId, p.chunkId, entry);
    if (!sameIndexed(before, after)) changes.push({ before, after });
  }
  // Whether each chunk that changes or goes had its postings written (no pending key) or not: one getMany, and
  // none at all for fresh chunks (the common put).
  const olds = changes.filter((c) => c.before !== null);
  const pendingValues = olds.length === 0 ? [] : await s.ctx.cf.candidates.getMany(olds.map((c) => pendingKey(c.before!)));
  const posted = new Map(olds.map((c, i) => [c, pendingValues[i] === undefined]));
  const delta = new IndexDelta();
  for (const c of changes) delta.change(c.before, posted.get(c) ?? false, c.after);
  if (delta.empty) return none;
  return { ops: indexOps(s.ctx.cf.candidates, delta), pending: delta.pending };
}

/** Adds (`sign` 1) or takes back (-1) the growth of pending counts a batch brings, before it is written. */
function addPending(s: TxnState, pending: ReadonlyMap<string, number>, sign: 1 | -1): void {
  for (const [user, by] of pending) if (by > 0) bumpPending(s, user, sign * by);
}

/** After a committed batch: the context's pending counts learn what it removed (growth was counted before), and the merge hears who grew. */
function publishPending(s: TxnState, pending: ReadonlyMap<string, number>): void {
  const grew: string[] = [];
  for (const [user, by] of pending) {
    if (by < 0) bumpPending(s, user, by);
    if (by > 0) grew.push(user);
  }
  if (grew.length > 0) s.ctx.onPending(grew);
}

function bumpPending(s: TxnState, user: string, by: number): void {
  const n = (s.ctx.pendingPostings.get(user) ?? 0) + by;
  if (n > 0) s.ctx.pendingPostings.set(user, n);
  else s.ctx.pendingPostings.delete(user);
}
