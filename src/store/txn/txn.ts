import type { EncodedFrame } from '../../block/frame-codec.js';
import { corruption } from '../../errors.js';
import type { Accounting } from '../../record/accounting.js';
import type { BlockInfo, BlockOrigin } from '../../record/block-info.js';
import { decodeDirEntry, type DirEntry, type SlotRef } from '../../record/dir-entry.js';
import type { BatchOp } from '../kv/batch-writer.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import { blockKey } from '../kv/keys.js';
import type { DeferredSync } from '../frame-store.js';
import { BlockPlacement, writeFrame, type AppendLane, type PlacementMark } from './block-placement.js';
import { abortCommit, commitTxn, prepareCommit, publishCommit, type PreparedCommit } from './txn-commit.js';
import { newTxnState, setBlockInfo, stagedBlockInfo, type PendingRecord, type TxnContext, type TxnState } from './txn-state.js';

export type { PendingRecord, TxnContext } from './txn-state.js';
export type { PreparedCommit } from './txn-commit.js';

/** A staging state to return to (Txn.savepoint). Opaque to callers. */
export interface Savepoint {
  readonly ops: number;
  readonly infos: ReadonlyMap<number, BlockInfo>;
  readonly dirs: ReadonlyMap<string, DirEntry | null>;
  readonly placement: PlacementMark;
  readonly acct: Accounting;
}

/**
 * One atomic change. Callers stage reads and writes through it (this file); placement (`block-placement.ts`)
 * decides at commit which block, frame and slot each staged record gets, and `commit()` (`txn-commit.ts`) writes
 * everything in a single LevelDB batch. Nothing is visible before that batch lands.
 *
 * Requires: the caller holds the store's write lock from construction until `commit()` resolves or the txn is
 * dropped (dropping is always safe: nothing was written).
 */
export class Txn {
  readonly #s: TxnState;
  readonly #placement = new BlockPlacement();
  readonly acct: Accounting;
  readonly now: number;

  /** A transaction of `userId` over the user's committed state `base` (`UserStates.load`, under the write lock). */
  constructor(ctx: TxnContext, userId: string, base: { readonly acct: Accounting; readonly version: string }) {
    this.#s = newTxnState(ctx, userId, base);
    this.acct = this.#s.acct;
    this.now = this.#s.now;
  }

  /** Reads a directory entry, seeing this transaction's own staged writes. */
  async dirEntry(key: string): Promise<DirEntry | null> {
    const s = this.#s;
    if (s.dirs.has(key)) return s.dirs.get(key) ?? null;
    if (s.original.has(key)) return s.original.get(key) ?? null;
    const v = await s.ctx.cf.dir.get(key);
    const e = v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(key)}`);
    s.original.set(key, e);
    return e;
  }

  /** Reads many directory entries at once (one getMany for the unstaged ones). */
  async dirEntries(keys: readonly string[]): Promise<(DirEntry | null)[]> {
    const s = this.#s;
    const missing = keys.filter((k) => !s.dirs.has(k));
    const values = missing.length === 0 ? [] : await s.ctx.cf.dir.getMany(missing);
    const loaded = new Map<string, DirEntry | null>();
    missing.forEach((k, i) => {
      const v = values[i];
      const e = v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`);
      loaded.set(k, e);
      s.original.set(k, e);
    });
    return keys.map((k) => (s.dirs.has(k) ? (s.dirs.get(k) ?? null) : (loaded.get(k) ?? null)));
  }

  putDir(key: string, entry: DirEntry): void {
    this.#s.dirs.set(key, entry);
  }

  /** Removes a directory entry outright, tombstone included (purge); its candidate-index keys go in the same batch. */
  deleteDir(key: string): void {
    this.#s.dirs.set(key, null);
  }

  /**
   * Releases a block at commit whatever its state or counters (purge): its frames are deleted in the same batch.
   * With `forget`, its block info is deleted too instead of being kept as Released. The caller has moved or
   * dropped every record the directory still points at inside it.
   */
  async retire(blockId: number, forget: boolean): Promise<void> {
    await this.blockInfo(blockId);
    this.#s.retired.set(blockId, { forget });
  }

  /**
   * Marks the current staging state, so that one write of a group commit can be undone alone (`rollback`) when it
   * fails, leaving the other writes staged. Only valid before `commit()` starts; does not cover `retire` (purge only,
   * never part of a grouped write).
   */
  savepoint(): Savepoint {
    const s = this.#s;
    return {
      ops: s.ops.length,
      infos: new Map(s.infos),
      dirs: new Map(s.dirs),
      placement: this.#placement.mark(),
      acct: { ...s.acct },
    };
  }

  /** Restores the staging state of `sp` (everything staged after it is dropped). */
  rollback(sp: Savepoint): void {
    const s = this.#s;
    s.ops.length = sp.ops;
    s.infos.clear();
    for (const [k, v] of sp.infos) s.infos.set(k, v);
    s.dirs.clear();
    for (const [k, v] of sp.dirs) s.dirs.set(k, v);
    this.#placement.rollback(sp.placement);
    Object.assign(s.acct, sp.acct);
  }

  /** True once `commit()` handed the batch to LevelDB (a failure after that may have reached the disk). */
  get batchAttempted(): boolean {
    return this.#batchAttempted;
  }

  #batchAttempted = false;

  /** Records that `key` has no committed directory entry without reading it (an id this engine just generated). */
  assumeAbsent(key: string): void {
    if (!this.#s.dirs.has(key)) this.#s.original.set(key, null);
  }

  blockInfo(blockId: number): Promise<BlockInfo> {
    return stagedBlockInfo(this.#s, blockId);
  }

  /**
   * Marks the record at `loc` invalid (its chunk was updated, deleted or moved). A sealed block whose last live
   * slot goes is released at commit.
   */
  async invalidate(loc: SlotRef, recordBytes: number): Promise<void> {
    const info = await this.blockInfo(loc.blockId);
    if (info.state === 'released') throw corruption(`directory points into released block ${blockKey(loc.blockId)}`);
    if (info.liveSlots < 1 || info.liveBytes < recordBytes) {
      throw corruption(`block ${blockKey(loc.blockId)} counters underflow while invalidating a slot`);
    }
    setBlockInfo(this.#s, info, {
      ...info,
      liveSlots: info.liveSlots - 1,
      liveBytes: info.liveBytes - recordBytes,
      lastWriteAt: this.now,
    });
  }

  /**
   * Stages a record for the user's open block (or the session's, without cross-session blocks). The directory
   * entry, if given, is written with the slot the record lands in.
   */
  append(
    userId: string,
    sessionId: string,
    bytes: Uint8Array,
    dirKey: string | null,
    entry: Omit<DirEntry, 'location'> | null,
    lane: AppendLane = 'append',
  ): void {
    this.#placement.append(this.#s, userId, sessionId, { bytes, dirKey, entry, sessionId }, lane);
  }

  /**
   * Stages records to be packed, in the given order, into fresh sealed blocks (relocation, GC). `groups` are
   * kept whole in one block where they fit; a new block starts when the next group would overflow capacity.
   */
  stageFreshBlocks(
    userId: string,
    origin: BlockOrigin,
    groups: readonly { bytes: Uint8Array; dirKey: string | null; entry: Omit<DirEntry, 'location'> | null; sessionId: string }[][],
  ): void {
    this.#placement.stageFreshBlocks(userId, origin, groups);
  }

  /**
   * Stages a sealed block whose single frame was already encoded elsewhere (a GC worker). `blockId` must come
   * from `StoreCore.reserveBlockIds` (the commit secures it with every id taken). Records with a null entry are born invalid (their chunk changed while the
   * frame was being built: compare-and-swap lost).
   */
  async addPrebuiltBlock(blockId: number, userId: string, origin: BlockOrigin, frame: EncodedFrame, recs: readonly PendingRecord[]): Promise<void> {
    writeFrame(this.#s, null, blockId, userId, origin, [...recs], true, frame);
  }

  /** Ids of blocks this commit releases (set by commit). */
  get released(): number[] {
    return this.#s.released;
  }

  /** The batch deletes the user's accounting record instead of writing it (a purge of the whole user). */
  dropAccounting(): void {
    this.#s.dropAccounting = true;
  }

  /** The user (partition) of this transaction. */
  get userId(): string {
    return this.#s.userId;
  }

  /** True when nothing has been staged: no record, directory entry, block change, raw op or accounting drop. */
  get stagesNothing(): boolean {
    const s = this.#s;
    return this.#placement.empty && s.ops.length === 0 && s.dirs.size === 0 && s.infos.size === 0 && s.retired.size === 0 && !s.dropAccounting && !s.rawAlloc;
  }

  /** Writes everything in one batch (`txn-commit.ts`). Resolves once the batch is durable per the durability option. */
  commit(): Promise<void> {
    return commitTxn(this.#s, this.#placement, () => {
      this.#batchAttempted = true;
    });
  }

  /**
   * The first half of `commit` for a caller that writes several users' batches together (group commit on a
   * backend without partitions): builds the batch; with `deferred`, the frames it wrote outside the batch are
   * synced later, together with the other users' (`FrameStore.syncDeferred`). The caller then writes `ops` and
   * calls `publish`, or `abort` when the write failed or never happened.
   */
  async prepare(deferred?: DeferredSync): Promise<PreparedCommit> {
    const p = await prepareCommit(this.#s, this.#placement, deferred);
    this.#batchAttempted = true;
    return p;
  }

  /** The prepared batch landed (see `prepare`). */
  publish(prepared: PreparedCommit): Promise<void> {
    return publishCommit(this.#s, this.#placement, prepared);
  }

  /** The prepared batch was not written (see `prepare`). */
  abort(prepared: PreparedCommit): void {
    abortCommit(this.#s, prepared);
  }

  /** Extra raw operations of the engine's own modules (purge's range deletions) to land in the same batch. */
  raw(op: BatchOp): void {
    if (op.sublevel === this.#s.ctx.cf.alloc) this.#s.rawAlloc = true;
    this.#s.ops.push(op);
  }

  /** The column families, for the engine's own modules that stage raw operations (purge hooks). */
  get cf(): ColumnFamilies {
    return this.#s.ctx.cf;
  }

  /** Deletes active turns a compaction consumed, in this transaction's batch (`active` column family). */
  deleteActiveTurns(keys: readonly string[]): void {
    for (const key of keys) this.#s.ops.push({ type: 'del', sublevel: this.#s.ctx.cf.active, key });
  }
}
