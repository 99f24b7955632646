import { corruption } from '../../errors.js';
import type { Accounting } from '../../record/accounting.js';
import { decodeBlockInfo, type BlockInfo } from '../../record/block-info.js';
import type { DirEntry } from '../../record/dir-entry.js';
import type { BatchOp, BatchWriter } from '../kv/batch-writer.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import type { FrameBatch, FrameStore } from '../frame-store.js';
import { blockInfoKey, blockKey } from '../kv/keys.js';
import type { BlockIdAllocator } from '../write/block-id-allocator.js';
import type { UserStates } from '../write/user-states.js';
import type { ReclaimableBlocks } from '../reclaimable-blocks.js';
import type { ResolvedStoreOptions } from '../../api/store-options.js';

/** State a transaction reads and advances; owned by the store and only touched under the write lock. */
export interface TxnContext {
  readonly cf: ColumnFamilies;
  /** Where block frames are kept. */
  readonly frames: FrameStore;
  readonly options: ResolvedStoreOptions;
  /** Where the commit's batch goes (and the write-error latch). */
  readonly writer: BatchWriter;
  /** Per-user committed accounting and partition versions, and unpersisted read counters (user-states.ts). */
  readonly users: UserStates;
  /** Block ids (block-id-allocator.ts): taken while placing, secured before the batch. */
  readonly ids: BlockIdAllocator;
  /**
   * Drops every state this process caches of the user (its accounting and version, open-block refs and infos,
   * pending-postings count): another process changed the user (fenced-write.ts).
   */
  forgetUser(userId: string): void;
  /**
   * Open blocks as last committed, so a write does not read its open-block ref and block info back from LevelDB:
   * open-block key → block id (null: no open block), and those blocks' infos. Updated after every committed batch
   * from what it wrote; cleared by a batch that wrote the allocator family directly (purge).
   */
  readonly openRefs: Map<string, number | null>;
  readonly openInfos: Map<number, BlockInfo>;
  /** Called after commit with the ids of released blocks (cache eviction). */
  onReleased(blockIds: readonly number[]): void;
  /**
   * Chunks whose postings are pending, per user (candidate-index.ts): never fewer than a snapshot of the database
   * holds, since a batch adds its growth before it is written and its shrinkage after it has landed. `onPending`
   * then hears which users gained pending chunks (to schedule the posting merge).
   */
  readonly pendingPostings: Map<string, number>;
  onPending(users: readonly string[]): void;
  /** The sealed blocks GC can take (reclaimable-blocks.ts): every committed batch notes the block infos it wrote. */
  readonly reclaimable: ReclaimableBlocks;
}

/** A record waiting to be placed in a block; its directory entry (if any) gets the slot it lands in. */
export interface PendingRecord {
  readonly bytes: Uint8Array;
  readonly dirKey: string | null;
  readonly entry: Omit<DirEntry, 'location'> | null;
  readonly sessionId: string;
}

/**
 * Everything one transaction has staged, shared by its staging API (`txn.ts`), block placement
 * (`block-placement.ts`) and its commit (`txn-commit.ts`). Owned by one Txn. REQUIRES: the store's write lock.
 */
export interface TxnState {
  readonly ctx: TxnContext;
  /** The user (partition) every key of this transaction's batch belongs to. */
  readonly userId: string;
  /** The user's partition version the staged state was read at (the batch's fence on a fenced backend). */
  readonly version: number;
  /** The block id allocator's epoch when this transaction began (`BlockIdAllocator.secure`). */
  readonly idEpoch: number;
  readonly now: number;
  /** The batch being built. */
  readonly ops: BatchOp[];
  /** Frames this transaction writes and releases (applied with `ops` at commit). */
  readonly frames: FrameBatch;
  /** Block infos as this transaction will leave them. */
  readonly infos: Map<number, BlockInfo>;
  /** Directory entries this transaction writes (null: deleted outright). */
  readonly dirs: Map<string, DirEntry | null>;
  /** Committed directory entries as first read by this transaction (the "before" side of the index delta). */
  readonly original: Map<string, DirEntry | null>;
  /** Blocks released at commit whatever their counters (purge); `forget` deletes their info too. */
  readonly retired: Map<number, { forget: boolean }>;
  /** The user's accounting as this transaction will leave it. */
  readonly acct: Accounting;
  /** The batch deletes the user's accounting record instead of writing it (whole-user purge). */
  dropAccounting: boolean;
  /** True when raw operations touched the allocator family: the open-block cache can no longer be trusted. */
  rawAlloc: boolean;
  /** Ids of blocks this commit releases (set by commit). */
  readonly released: number[];
  /** Frames placed but still compressing (block-placement.ts `writeFrame`, collected by `settleFrames`). */
  readonly pendingFrames: { readonly blockId: number; readonly frameNo: number; readonly value: Promise<Buffer> }[];
}

/** A fresh transaction of `userId` over the user's committed state `base` (`UserStates.load`). */
export function newTxnState(ctx: TxnContext, userId: string, base: { readonly acct: Accounting; readonly version: number }): TxnState {
  return {
    ctx,
    userId,
    version: base.version,
    idEpoch: ctx.ids.epoch,
    now: ctx.options.now(),
    ops: [],
    frames: ctx.frames.batch(userId),
    infos: new Map(),
    dirs: new Map(),
    original: new Map(),
    retired: new Map(),
    acct: { ...base.acct },
    rawAlloc: false,
    dropAccounting: false,
    released: [],
    pendingFrames: [],
  };
}

/** A block of the transaction's user, as this transaction sees it: staged, else the open-block cache, else read from the store. */
export async function stagedBlockInfo(s: TxnState, blockId: number): Promise<BlockInfo> {
  const staged = s.infos.get(blockId);
  if (staged !== undefined) return staged;
  const known = s.ctx.openInfos.get(blockId);
  if (known !== undefined) {
    s.infos.set(blockId, known);
    return known;
  }
  const v = await s.ctx.cf.blockInfo.get(blockInfoKey(s.userId, blockId));
  if (v === undefined) throw corruption(`block ${blockKey(blockId)} has no block info`);
  const info = decodeBlockInfo(v, `block info ${blockKey(blockId)}`);
  s.infos.set(blockId, info);
  return info;
}

/** Replaces a block's info and moves the accounting totals by the difference. */
export function setBlockInfo(s: TxnState, prev: BlockInfo | null, next: BlockInfo): void {
  const counted = (i: BlockInfo | null): [number, number, number] =>
    i === null || i.state === 'released' ? [0, 0, 0] : [i.liveBytes, i.rawBytes, i.storedBytes];
  const [l0, r0, s0] = counted(prev);
  const [l1, r1, s1] = counted(next);
  s.acct.liveBytes += l1 - l0;
  s.acct.storedRawBytes += r1 - r0;
  s.acct.storedBytes += s1 - s0;
  s.infos.set(next.blockId, next);
}
