import type { AbstractSnapshot } from 'abstract-level';
// Family before BatchOp: TypeScript measures abstract-level's generic variance in the order it meets the types, and
// meeting the batch operation type first makes ClassicLevel no longer assignable to AnyLevel elsewhere.
import type { Family } from './kv/column-families.js';
import type { BatchOp } from './kv/batch-writer.js';

/** One frame of one block of one user (docs/format.md, "Blocks and frames"; block ids are unique across users). */
export interface FrameRef {
  readonly userId: string;
  readonly blockId: number;
  readonly frame: number;
}

/**
 * One commit's frame changes, all of blocks of the commit's user. Staged under the store's write lock while a transaction is built, then applied with
 * the commit's key-value batch: `prepare` before the batch is written, `committed` once it is durable. Owned by one
 * transaction; never reused.
 */
export interface FrameBatch {
  /** Stages the stored bytes of frame `frame` of block `blockId`. The buffer must not change afterwards. */
  put(blockId: number, frame: number, value: Buffer): void;
  /**
   * Stages the release of a block's frames `0 … frames-1`: once the batch commits their bytes are gone from where
   * frames are kept (deleted, or overwritten), so erased data (purge) does not linger.
   */
  release(blockId: number, frames: number): void;
  /**
   * Makes the staged frames part of the commit: appends to `ops` what the key-value batch must carry, and writes
   * (with the store's durability) whatever is kept outside it. Resolves before the batch may be written; a rejection
   * is a storage write error and the batch must not be written.
   */
  prepare(ops: BatchOp[], deferred?: DeferredSync): Promise<void>;
  /** The batch `prepare` fed is durable: what the released blocks held may go. Never rejects. */
  committed(): Promise<void>;
}

/**
 * Durability several batches' `prepare` left to one sync (a group commit of several users' batches written as one
 * key-value batch): each `prepare` given it writes its frames and notes what needs syncing instead of syncing, and
 * `FrameStore.syncDeferred` then syncs everything once, before the key-value batch is written.
 */
export interface DeferredSync {
  /** What the frame store noted (its own bookkeeping). */
  readonly pending: Set<unknown>;
}

/** The key-value family a store keeping frames in the key-value store keeps them in. */
export type FrameFamily = Family;

/** A frame as enumerated by `FrameStore.entries`: `userId` is null where the store does not record it (frame files). */
export interface StoredFrame {
  readonly userId: string | null;
  readonly blockId: number;
  readonly frame: number;
  readonly value: Buffer;
}

/**
 * Where block frames are kept: the one seam between the engine and the stored bytes of its blocks. Everything that
 * writes, reads, releases or lists frames goes through it (block placement, the slot reader, GC, purge, verify,
 * salvage). Frames are immutable once committed; a block's frames are numbered from 0 in the order they were
 * written. Reads given a snapshot see the frames as of that snapshot.
 */
export interface FrameStore {
  /** A batch for one commit of `userId`. */
  batch(userId: string): FrameBatch;
  /**
   * Syncs what `prepare` calls given `deferred` left (per the store's durability). A rejection is a storage write
   * error: none of those batches may be written.
   */
  syncDeferred(deferred: DeferredSync): Promise<void>;
  /** The stored bytes of each frame, in request order; undefined where the store holds no such frame. */
  getMany(refs: readonly FrameRef[], snapshot?: AbstractSnapshot): Promise<(Buffer | undefined)[]>;
  /** Frame numbers the store holds for `blockId` (verify: a released block must hold none). */
  framesOf(userId: string, blockId: number, snapshot?: AbstractSnapshot): AsyncIterable<number>;
  /**
   * Every readable frame (of the blocks `only` accepts, if given). `onError` hears about unreadable regions, which
   * are skipped (salvage reads past damage).
   */
  entries(onError: (err: unknown, after: string | null) => void, only?: (blockId: number) => boolean): AsyncIterable<StoredFrame>;
  /**
   * The root key-value range that held the frames of the user's blocks `minBlock … maxBlock`, for a compaction that must
   * physically drop them (purge), or null when frames are not kept in the key-value store.
   */
  keyRange(userId: string, minBlock: number, maxBlock: number): [string, string] | null;

  // Lifecycle: what each implementation does with released blocks and open resources, so the engine never asks
  // which implementation it holds.

  /**
   * True when `entries` may still yield the frames of released blocks until `erase` or `retire` reclaims them (frame
   * files keep a released extent's bytes for a grace period). Salvage then reads only the blocks still holding data.
   */
  readonly keepsReleasedFrames: boolean;
  /**
   * Erases the bytes released blocks left behind: all of them with `now` (purge), else those past their grace
   * period. A failure leaves them for a later call. REQUIRES: the write lock when `now`.
   */
  erase(now: boolean): Promise<void>;
  /**
   * Deletes storage none of whose blocks holds data. `allocatedBelow` is the first block id not yet handed out;
   * `all` checks everything (at open, after a crash) rather than what this process released, asking
   * `blocksHoldingData` (the non-released blocks, from the block infos) at most once. Returns how many storage units
   * (segment files) went; 0 where the store has no storage of its own. A rejection changes nothing.
   */
  retire(allocatedBelow: number, all: boolean, blocksHoldingData: () => Promise<ReadonlySet<number>>): Promise<number>;
  /** Releases what the store holds open (file handles). Called after the key-value store closed. */
  close(): Promise<void>;
}
