import { encodeFrame, type EncodedFrame } from '../block/frame-codec.js';
import { layoutGroups } from '../block/pack-layout.js';
import { corruption } from '../errors.js';
import { encodeAccounting, type Accounting } from '../record/accounting.js';
import { decodeBlockInfo, encodeBlockInfo, totalSlots, type BlockInfo, type BlockOrigin } from '../record/block-info.js';
import { decodeDirEntry, encodeDirEntry, type DirEntry, type SlotRef } from '../record/dir-entry.js';
import { decodeOpenBlockRef, encodeAllocator, encodeOpenBlockRef } from '../record/engine-records.js';
import { IndexDelta, indexOps, indexedChunk } from './candidate-index.js';
import type { ColumnFamilies } from './column-families.js';
import { ALLOC_NEXT_KEY, META_ACCOUNTING_KEY, blockKey, frameKey, openBlockKey, parseDirKey } from './keys.js';
import type { BatchOp, BatchWriter } from './batch-writer.js';
import type { ResolvedStoreOptions } from './options.js';

/** State a transaction reads and advances; owned by the store and only touched under the write lock. */
export interface TxnContext {
  readonly cf: ColumnFamilies;
  readonly options: ResolvedStoreOptions;
  /** Where the commit's batch goes (and the write-error latch). */
  readonly writer: BatchWriter;
  /** Live accounting; the transaction works on a copy and publishes it only on commit. */
  accounting: Accounting;
  nextBlockId: number;
  /**
   * Open blocks as last committed, so a write does not read its open-block ref and block info back from LevelDB:
   * open-block key → block id (null: no open block), and those blocks' infos. Updated after every committed batch
   * from what it wrote; cleared by a batch that wrote the allocator family directly (purge).
   */
  readonly openRefs: Map<string, number | null>;
  readonly openInfos: Map<number, BlockInfo>;
  /** Called after commit with the ids of released blocks (cache eviction). */
  onReleased(blockIds: readonly number[]): void;
}

/** A staging state to return to (Txn.savepoint). Opaque to callers. */
export interface Savepoint {
  readonly ops: number;
  readonly infos: ReadonlyMap<number, BlockInfo>;
  readonly dirs: ReadonlyMap<string, DirEntry | null>;
  readonly appends: ReadonlyMap<string, number>;
  readonly sealed: number;
  readonly acct: Accounting;
  readonly nextBlockId: number;
  readonly reservedUpTo: number;
}

export interface PendingRecord {
  readonly bytes: Uint8Array;
  readonly dirKey: string | null;
  readonly entry: Omit<DirEntry, 'location'> | null;
  readonly sessionId: string;
}

type Op = BatchOp;

/**
 * One atomic change. Callers stage reads and writes through it; `commit()` encodes the frames, settles block
 * counters, releases emptied sealed blocks, and writes everything — frames, block infos, directory entries,
 * allocator state and accounting — in a single LevelDB batch. Nothing is visible before that batch lands.
 *
 * Requires: the caller holds the store's write lock from construction until `commit()` resolves or the txn is
 * dropped (dropping is always safe: nothing was written).
 */
export class Txn {
  readonly #ctx: TxnContext;
  readonly #ops: Op[] = [];
  readonly #infos = new Map<number, BlockInfo>();
  readonly #dirs = new Map<string, DirEntry | null>();
  /** Committed directory entries as first read by this transaction (the "before" side of the index delta). */
  readonly #original = new Map<string, DirEntry | null>();
  readonly #appends = new Map<string, { userId: string; sessionId: string | null; lane: 'append' | 'relocation'; records: PendingRecord[] }>();
  readonly #sealedGroups: { userId: string; origin: BlockOrigin; records: PendingRecord[]; split: number[] }[] = [];
  readonly acct: Accounting;
  #nextBlockId: number;
  readonly now: number;

  constructor(ctx: TxnContext) {
    this.#ctx = ctx;
    this.acct = { ...ctx.accounting };
    this.#nextBlockId = ctx.nextBlockId;
    this.now = ctx.options.now();
  }

  /** Reads a directory entry, seeing this transaction's own staged writes. */
  async dirEntry(key: string): Promise<DirEntry | null> {
    if (this.#dirs.has(key)) return this.#dirs.get(key) ?? null;
    if (this.#original.has(key)) return this.#original.get(key) ?? null;
    const v = await this.#ctx.cf.dir.get(key);
    const e = v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(key)}`);
    this.#original.set(key, e);
    return e;
  }

  /** Reads many directory entries at once (one getMany for the unstaged ones). */
  async dirEntries(keys: readonly string[]): Promise<(DirEntry | null)[]> {
    const missing = keys.filter((k) => !this.#dirs.has(k));
    const values = missing.length === 0 ? [] : await this.#ctx.cf.dir.getMany(missing);
    const loaded = new Map<string, DirEntry | null>();
    missing.forEach((k, i) => {
      const v = values[i];
      const e = v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`);
      loaded.set(k, e);
      this.#original.set(k, e);
    });
    return keys.map((k) => (this.#dirs.has(k) ? (this.#dirs.get(k) ?? null) : (loaded.get(k) ?? null)));
  }

  putDir(key: string, entry: DirEntry): void {
    this.#dirs.set(key, entry);
  }

  /** Removes a directory entry outright, tombstone included (purge); its candidate-index keys go in the same batch. */
  deleteDir(key: string): void {
    this.#dirs.set(key, null);
  }

  readonly #retired = new Map<number, { forget: boolean }>();

  /**
   * Releases a block at commit whatever its state or counters (purge): its frames are deleted in the same batch.
   * With `forget`, its block info is deleted too instead of being kept as Released. The caller has moved or
   * dropped every record the directory still points at inside it.
   */
  async retire(blockId: number, forget: boolean): Promise<void> {
    await this.blockInfo(blockId);
    this.#retired.set(blockId, { forget });
  }

  /**
   * Marks the current staging state, so that one write of a group commit can be undone alone (`rollback`) when it
   * fails, leaving the other writes staged. Only valid before `commit()` starts; does not cover `retire` (purge only,
   * never part of a grouped write).
   */
  savepoint(): Savepoint {
    return {
      ops: this.#ops.length,
      infos: new Map(this.#infos),
      dirs: new Map(this.#dirs),
      appends: new Map([...this.#appends].map(([k, g]) => [k, g.records.length])),
      sealed: this.#sealedGroups.length,
      acct: { ...this.acct },
      nextBlockId: this.#nextBlockId,
      reservedUpTo: this.#reservedUpTo,
    };
  }

  /** Restores the staging state of `sp` (everything staged after it is dropped). */
  rollback(sp: Savepoint): void {
    this.#ops.length = sp.ops;
    this.#infos.clear();
    for (const [k, v] of sp.infos) this.#infos.set(k, v);
    this.#dirs.clear();
    for (const [k, v] of sp.dirs) this.#dirs.set(k, v);
    for (const [k, g] of this.#appends) {
      const n = sp.appends.get(k);
      if (n === undefined) this.#appends.delete(k);
      else g.records.length = n;
    }
    this.#sealedGroups.length = sp.sealed;
    Object.assign(this.acct, sp.acct);
    this.#nextBlockId = sp.nextBlockId;
    this.#reservedUpTo = sp.reservedUpTo;
  }

  /** True once `commit()` handed the batch to LevelDB (a failure after that may have reached the disk). */
  get batchAttempted(): boolean {
    return this.#batchAttempted;
  }

  #batchAttempted = false;

  /** Records that `key` has no committed directory entry without reading it (an id this engine just generated). */
  assumeAbsent(key: string): void {
    if (!this.#dirs.has(key)) this.#original.set(key, null);
  }

  async blockInfo(blockId: number): Promise<BlockInfo> {
    const staged = this.#infos.get(blockId);
    if (staged !== undefined) return staged;
    const known = this.#ctx.openInfos.get(blockId);
    if (known !== undefined) {
      this.#infos.set(blockId, known);
      return known;
    }
    const v = await this.#ctx.cf.blockInfo.get(blockKey(blockId));
    if (v === undefined) throw corruption(`block ${blockKey(blockId)} has no block info`);
    const info = decodeBlockInfo(v, `block info ${blockKey(blockId)}`);
    this.#infos.set(blockId, info);
    return info;
  }

  /** Replaces a block's info and moves the accounting totals by the difference. */
  #setInfo(prev: BlockInfo | null, next: BlockInfo): void {
    const counted = (i: BlockInfo | null): [number, number, number] =>
      i === null || i.state === 'released' ? [0, 0, 0] : [i.liveBytes, i.rawBytes, i.storedBytes];
    const [l0, r0, s0] = counted(prev);
    const [l1, r1, s1] = counted(next);
    this.acct.liveBytes += l1 - l0;
    this.acct.storedRawBytes += r1 - r0;
    this.acct.storedBytes += s1 - s0;
    this.#infos.set(next.blockId, next);
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
    this.#setInfo(info, {
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
    lane: 'append' | 'relocation' = 'append',
  ): void {
    const scope = this.#ctx.options.crossSessionBlocks ? null : sessionId;
    const k = openBlockKey(userId, scope, lane);
    let g = this.#appends.get(k);
    if (g === undefined) {
      g = { userId, sessionId: scope, lane, records: [] };
      this.#appends.set(k, g);
    }
    g.records.push({ bytes, dirKey, entry, sessionId });
  }

  /**
   * Stages records to be packed, in the given order, into fresh sealed blocks (relocation, GC). `groups` are
   * kept whole in one block where they fit; a new block starts when the next group would overflow capacity.
   */
  packSealed(
    userId: string,
    origin: BlockOrigin,
    groups: readonly { bytes: Uint8Array; dirKey: string | null; entry: Omit<DirEntry, 'location'> | null; sessionId: string }[][],
  ): void {
    const records: PendingRecord[] = [];
    const split: number[] = [];
    for (const g of groups) {
      split.push(g.length);
      records.push(...g);
    }
    this.#sealedGroups.push({ userId, origin, records, split });
  }

  #reservedUpTo = 0;

  /** Records that ids below `upTo` are taken (prebuilt blocks), so the allocator state persists past them. */
  noteReserved(upTo: number): void {
    this.#reservedUpTo = Math.max(this.#reservedUpTo, upTo);
  }

  #allocate(): number {
    return this.#nextBlockId++;
  }

  #fits(slots: number, bytes: number, addBytes: number): boolean {
    const o = this.#ctx.options;
    return slots < o.blockCapacity && (slots === 0 || bytes + addBytes <= o.blockMaxBytes);
  }

  async #writeFrame(
    info: BlockInfo | null,
    blockId: number,
    userId: string,
    origin: BlockOrigin,
    recs: PendingRecord[],
    seal: boolean,
    prebuilt?: EncodedFrame,
  ): Promise<void> {
    const frameNo = info === null ? 0 : info.frameSlots.length;
    const frame = prebuilt ?? (await encodeFrame(blockId, frameNo, userId, recs.map((r) => r.bytes), this.#ctx.options.zstdLevel));
    this.#ops.push({ type: 'put', sublevel: this.#ctx.cf.blocks, key: frameKey(blockId, frameNo), value: frame.value });
    const sessions = new Set(recs.map((r) => r.sessionId));
    let sessionId: string;
    if (info === null) sessionId = sessions.size === 1 ? (recs[0]?.sessionId ?? '') : '';
    else sessionId = info.sessionId !== '' && sessions.size === 1 && sessions.has(info.sessionId) ? info.sessionId : '';
    const liveRecs = recs.filter((r) => r.entry !== null);
    let liveBytes = 0;
    for (const r of liveRecs) liveBytes += r.bytes.length;
    const base: BlockInfo = info ?? {
      blockId,
      userId,
      sessionId,
      state: 'open',
      origin,
      frameSlots: [],
      frameBytes: [],
      liveSlots: 0,
      liveBytes: 0,
      rawBytes: 0,
      storedBytes: 0,
      createdAt: this.now,
      lastWriteAt: this.now,
      sealedAt: null,
      releasedAt: null,
    };
    const next: BlockInfo = {
      ...base,
      sessionId,
      state: seal ? 'sealed' : 'open',
      frameSlots: [...base.frameSlots, recs.length],
      frameBytes: [...base.frameBytes, frame.value.length],
      liveSlots: base.liveSlots + liveRecs.length,
      liveBytes: base.liveBytes + liveBytes,
      rawBytes: base.rawBytes + frame.rawBytes,
      storedBytes: base.storedBytes + frame.value.length,
      lastWriteAt: this.now,
      sealedAt: seal ? this.now : null,
    };
    if (info === null) this.acct.blocksCreated++;
    this.#setInfo(info, next);
    this.acct.engineBytesWritten += frame.rawBytes;
    recs.forEach((r, slot) => {
      if (r.dirKey !== null && r.entry !== null) {
        this.#dirs.set(r.dirKey, { ...r.entry, location: { blockId, frame: frameNo, slot } });
      }
    });
  }

  async #flushAppends(): Promise<void> {
    const cf = this.#ctx.cf;
    for (const [openKey, g] of this.#appends) {
      let id = this.#ctx.openRefs.get(openKey);
      if (id === undefined) {
        const refValue = await cf.alloc.get(openKey);
        id = refValue === undefined ? null : decodeOpenBlockRef(refValue, `open block ref ${JSON.stringify(openKey)}`);
      }
      let info: BlockInfo | null = null;
      if (id !== null) {
        info = await this.blockInfo(id);
        if (info.state !== 'open') info = null; // stale ref: a fresh block is started
      }
      // A relocated group is kept whole: when it does not fit beside what the open relocation block holds, that
      // block is sealed and the group starts a fresh one (a group larger than a block spills over).
      if (g.lane === 'relocation' && info !== null) {
        let add = 0;
        for (const r of g.records) add += r.bytes.length;
        const o = this.#ctx.options;
        if (totalSlots(info) + g.records.length > o.blockCapacity || info.rawBytes + add > o.blockMaxBytes) {
          this.#setInfo(info, { ...info, state: 'sealed', sealedAt: this.now });
          info = null;
        }
      }
      let i = 0;
      while (i < g.records.length) {
        let blockId: number;
        if (info === null) blockId = this.#allocate();
        else blockId = info.blockId;
        let slots = info === null ? 0 : totalSlots(info);
        let bytes = info === null ? 0 : info.rawBytes;
        const batch: PendingRecord[] = [];
        while (i < g.records.length) {
          const r = g.records[i]!;
          if (!this.#fits(slots + batch.length, bytes, r.bytes.length)) break;
          batch.push(r);
          bytes += r.bytes.length;
          i++;
        }
        if (batch.length === 0) {
          // The open block is full (capacity reached by earlier writes): seal it as is and start another.
          if (info !== null) this.#setInfo(info, { ...info, state: 'sealed', sealedAt: this.now });
          info = null;
          continue;
        }
        slots += batch.length;
        const seal = !this.#fits(slots, bytes, 1);
        await this.#writeFrame(info, blockId, g.userId, g.lane, batch, seal);
        info = seal ? null : (this.#infos.get(blockId) ?? null);
      }
      if (info === null) this.#ops.push({ type: 'del', sublevel: cf.alloc, key: openKey });
      else this.#ops.push({ type: 'put', sublevel: cf.alloc, key: openKey, value: encodeOpenBlockRef(info.blockId) });
      this.#openRefs.set(openKey, info === null ? null : info.blockId);
    }
  }

  async #flushSealed(): Promise<void> {
    const o = this.#ctx.options;
    for (const { userId, origin, records, split } of this.#sealedGroups) {
      const sizes: number[][] = [];
      let at = 0;
      for (const n of split) {
        sizes.push(records.slice(at, at + n).map((r) => r.bytes.length));
        at += n;
      }
      for (const block of layoutGroups(sizes, o.blockCapacity, o.blockMaxBytes)) {
        await this.#writeFrame(null, this.#allocate(), userId, origin, block.map((i) => records[i]!), true);
      }
    }
  }

  /**
   * Stages a sealed block whose single frame was already encoded elsewhere (a GC worker). `blockId` must come
   * from `StoreCore.reserveBlockIds`. Records with a null entry are born invalid (their chunk changed while the
   * frame was being built: compare-and-swap lost).
   */
  async addPrebuiltBlock(blockId: number, userId: string, origin: BlockOrigin, frame: EncodedFrame, recs: readonly PendingRecord[]): Promise<void> {
    await this.#writeFrame(null, blockId, userId, origin, [...recs], true, frame);
  }

  /** Ids of blocks this commit releases (set by commit). */
  released: number[] = [];

  /** Writes everything in one batch. Resolves once the batch is durable per the durability option. */
  async commit(): Promise<void> {
    const cf = this.#ctx.cf;
    await this.#flushSealed();
    await this.#flushAppends();
    for (const info of [...this.#infos.values()]) {
      const retired = this.#retired.has(info.blockId);
      if (retired && info.state === 'released') continue;
      if ((info.state === 'sealed' && info.liveSlots === 0) || retired) {
        for (let f = 0; f < info.frameSlots.length; f++) this.#ops.push({ type: 'del', sublevel: cf.blocks, key: frameKey(info.blockId, f) });
        this.#setInfo(info, { ...info, state: 'released', liveSlots: 0, liveBytes: 0, releasedAt: this.now });
        this.acct.blocksReleased++;
        this.released.push(info.blockId);
      }
    }
    for (const [key, entry] of this.#dirs) {
      if (entry === null) this.#ops.push({ type: 'del', sublevel: cf.dir, key });
      else this.#ops.push({ type: 'put', sublevel: cf.dir, key, value: encodeDirEntry(entry) });
    }
    await this.#stageIndex();
    for (const info of this.#infos.values()) {
      if (this.#retired.get(info.blockId)?.forget === true) this.#ops.push({ type: 'del', sublevel: cf.blockInfo, key: blockKey(info.blockId) });
      else this.#ops.push({ type: 'put', sublevel: cf.blockInfo, key: blockKey(info.blockId), value: encodeBlockInfo(info) });
    }
    if (this.#nextBlockId !== this.#ctx.nextBlockId || this.#reservedUpTo > 0) {
      this.#ops.push({ type: 'put', sublevel: cf.alloc, key: ALLOC_NEXT_KEY, value: encodeAllocator(Math.max(this.#nextBlockId, this.#reservedUpTo)) });
    }
    // Reads bump the retrieval counters on the live object without the write lock: take the newest values.
    this.acct.retrievals = this.#ctx.accounting.retrievals;
    this.acct.retrievalBlocks = this.#ctx.accounting.retrievalBlocks;
    this.#ops.push({ type: 'put', sublevel: cf.meta, key: META_ACCOUNTING_KEY, value: encodeAccounting(this.acct) });
    this.#batchAttempted = true;
    await this.#ctx.writer.write(this.#ops);
    this.acct.retrievals = this.#ctx.accounting.retrievals;
    this.acct.retrievalBlocks = this.#ctx.accounting.retrievalBlocks;
    this.#ctx.accounting = this.acct;
    this.#ctx.nextBlockId = this.#nextBlockId;
    this.#publishOpenBlocks();
    if (this.released.length > 0) this.#ctx.onReleased(this.released);
  }

  /** Open-block refs this commit wrote (for the context's cache). */
  readonly #openRefs = new Map<string, number | null>();
  /** True when raw operations touched the allocator family: the open-block cache can no longer be trusted. */
  #rawAlloc = false;

  /** After a committed batch: the context's open-block cache learns what this batch wrote. */
  #publishOpenBlocks(): void {
    const { openRefs, openInfos } = this.#ctx;
    if (this.#rawAlloc || this.#retired.size > 0) {
      openRefs.clear();
      openInfos.clear();
      return;
    }
    for (const info of this.#infos.values()) {
      if (info.state === 'open') openInfos.set(info.blockId, info);
      else openInfos.delete(info.blockId);
    }
    for (const [k, id] of this.#openRefs) openRefs.set(k, id);
    // Bounded: one entry per open block; a store with very many users forgets them all at once and rereads.
    if (openRefs.size > 100_000 || openInfos.size > 100_000) {
      openRefs.clear();
      openInfos.clear();
    }
  }

  /**
   * The candidate index follows the directory: every entry this commit writes is compared with the committed one,
   * and the difference (entry keys, counters) joins the batch. Entries that only moved (relocation, GC) differ in
   * nothing the index holds, so they add nothing.
   */
  async #stageIndex(): Promise<void> {
    if (this.#dirs.size === 0) return;
    const unread = [...this.#dirs.keys()].filter((k) => !this.#original.has(k));
    const values = unread.length === 0 ? [] : await this.#ctx.cf.dir.getMany(unread);
    unread.forEach((k, i) => {
      const v = values[i];
      this.#original.set(k, v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`));
    });
    const delta = new IndexDelta();
    for (const [key, entry] of this.#dirs) {
      const p = parseDirKey(key);
      if (p === null) continue;
      delta.change(indexedChunk(p.userId, p.sessionId, p.chunkId, this.#original.get(key) ?? null), indexedChunk(p.userId, p.sessionId, p.chunkId, entry));
    }
    if (delta.empty && delta.stats.size === 0) return;
    for (const op of await indexOps(this.#ctx.cf.candidates, delta)) this.#ops.push(op);
  }

  /** Extra raw operations of the engine's own modules (purge's range deletions) to land in the same batch. */
  raw(op: Op): void {
    if (op.sublevel === this.#ctx.cf.alloc) this.#rawAlloc = true;
    this.#ops.push(op);
  }

  /** The column families, for the engine's own modules that stage raw operations (purge hooks). */
  get cf(): ColumnFamilies {
    return this.#ctx.cf;
  }

  /** Deletes active turns a compaction consumed, in this transaction's batch (`active` column family). */
  deleteActiveTurns(keys: readonly string[]): void {
    for (const key of keys) this.#ops.push({ type: 'del', sublevel: this.#ctx.cf.active, key });
  }
}

