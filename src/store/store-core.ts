import type { ModelUsageRow } from '../record/model-usage-rows.js';
import type { AbstractSnapshot } from 'abstract-level';
import { BlockCache } from '../block/block-cache.js';
import { DecodedEntries } from './index/decoded-entries.js';
import { CandidateReadMemo } from './index/candidate-read-memo.js';
import { AkashicError } from '../errors.js';
import type { Accounting } from '../record/accounting.js';
import type { BlockInfo } from '../record/block-info.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import type { DirEntry, KeywordTermsDerivation } from '../record/dir-entry.js';
import type { EngineMeta } from '../record/engine-records.js';
import { readSlots, type SlotReadResult, type UserSlot } from './read/block-reader.js';
import { BlockIdAllocator } from './write/block-id-allocator.js';
import { UserStates } from './write/user-states.js';
import { retryOnConflict, writeUserBatch } from './write/fenced-write.js';
import { readConsistent } from './read/consistent-read.js';
import { upgradeToFormat6 } from './kv/format-upgrade.js';
import { isPartitioned, partitionFencing } from './kv/partition-fencing.js';
import { BatchWriter, type BatchOp } from './kv/batch-writer.js';
import { readCandidates, type CandidateCaches, type CandidateQuery, type CandidateRead } from './index/candidate-reader.js';
import type { ChunkRef } from '../api/chunk-input.js';
import { ChunkIdGenerator } from './write/chunk-id-generator.js';
import { coAccessKeys, persistCoAccess, readCoAccess } from './write/co-access.js';
import { CO_ACCESS_FLUSH_EVERY, CoAccessBuffer } from './write/co-access-buffer.js';
import { openFamilies, type ColumnFamilies } from './kv/column-families.js';
import { checkDatabaseFormat, recordDatabaseFormat } from './kv/database-format.js';
import { openEngineMeta } from './write/engine-meta.js';
import type { FrameStore } from './frame-store.js';
import { GroupCommit } from './write/group-commit.js';
import { openCandidateIndex } from './index/index-rebuild.js';
import { FileFrameStore } from './file-frame-store.js';
import { KvFrameStore } from './kv-frame-store.js';
import { ReclaimableBlocks, type ReclaimableBlock } from './reclaimable-blocks.js';
import { PostingMerger, pendingRange } from './index/posting-merge.js';
import type { PostingMergeReport } from '../api/reports.js';
import { META_ENGINE_KEY, META_FRAMES_KEY, SEP, blockKey, openBlockKey, prefixRange } from './kv/keys.js';
import type { Mutation, WriteExtra } from './write/mutations.js';
import type { MutationResult, ListedEntry, ReadResult } from '../api/results.js';
import type { AnyLevel, ResolvedStoreOptions } from '../api/store-options.js';
import { checkRecord, listBlockInfos, listEntries, listSessions, listUsers, locateChunks, readChunks, readLiveRecords, readLocated, type LocatedRef } from './read/read-path.js';
import { Txn, type TxnContext } from './txn/txn.js';
import { WriteLock } from './kv/write-lock.js';

/**
 * The internal engine: trusts its inputs (the public AkashicStore validates them), serializes every mutation
 * under one write lock, and reads from snapshots. It holds the engine's state (column families, lock, cache,
 * transaction context) and delegates each concept to its module: engine meta (`engine-meta.ts`), chunk ids
 * (`chunk-id-generator.ts`), the write path (`group-commit.ts` → `mutations.ts` → `txn/`), the read path
 * (`read-path.ts`, `candidate-reader.ts`) and co-access (`co-access.ts`).
 * @internal
 */
export class StoreCore {
  readonly db: AnyLevel;
  readonly cf: ColumnFamilies;
  /** Where block frames are kept (frame-store.ts). */
  readonly frames: FrameStore;
  readonly options: ResolvedStoreOptions;
  readonly lock = new WriteLock();
  readonly cache: BlockCache;
  /** Decoded directory entries of recall's candidates, checked against the stored bytes (decoded-entries.ts). */
  readonly decodedEntries: DecodedEntries;
  /** What recall's candidate gatherings read, per user at its version (candidate-read-memo.ts). */
  readonly candidateMemo: CandidateReadMemo;
  readonly ctx: TxnContext;
  /** The sealed blocks GC can take, kept by the commit path (reclaimable-blocks.ts). */
  readonly reclaimable: ReclaimableBlocks;
  /** Every write goes through it; it latches the store read-only after a storage write error. */
  readonly writer: BatchWriter;
  meta: EngineMeta;
  readonly #groups: GroupCommit;
  /** Schedules the candidate index's posting merges (posting-merge.ts). */
  readonly #postings: PostingMerger;

  private constructor(
    db: AnyLevel,
    cf: ColumnFamilies,
    options: ResolvedStoreOptions,
    writer: BatchWriter,
    meta: EngineMeta,
    users: UserStates,
    ids: BlockIdAllocator,
    frames: FrameStore,
    keywordTerms: KeywordTermsDerivation | null,
  ) {
    this.db = db;
    this.writer = writer;
    this.options = options;
    this.cf = cf;
    this.frames = frames;
    this.cache = new BlockCache(options.cacheBytes);
    this.decodedEntries = new DecodedEntries(Math.floor(options.cacheBytes / 4));
    this.candidateMemo = new CandidateReadMemo(Math.floor(options.cacheBytes / 4));
    const partitioned = isPartitioned(db);
    // The candidate memo reads the directory and the candidate index only.
    writer.watch([cf.dir, cf.candidates]);
    this.#candidateCaches = {
      decoded: this.decodedEntries,
      memo: this.candidateMemo,
      version: (userId) => {
        const reader = this.ctx.users.versionReader;
        // '0' is every empty partition's version, so it repeats (a purged user): never a memo key.
        if (reader !== null) return reader(userId).then((v) => (v === '0' ? null : v));
        return partitioned ? null : writer.generation();
      },
    };
    this.meta = meta;
    this.reclaimable = new ReclaimableBlocks({ mergeBelowFill: options.gcMergeBelowFill, blockCapacity: options.blockCapacity, blockMaxBytes: options.blockMaxBytes });
    const cache = this.cache;
    this.ctx = {
      cf: this.cf,
      frames: this.frames,
      options,
      writer,
      users,
      ids,
      forgetUser: (userId) => this.#forgetUser(userId),
      openRefs: new Map(),
      openInfos: new Map(),
      onReleased: (ids) => {
        for (const id of ids) cache.evictBlock(blockKey(id) + '.');
        // Queued behind the commit that released them, under the write lock: no commit can be writing frames into
        // a segment while it is judged dead (a GC block id reserved in it has no info until its commit).
        void this.lock.run(() => this.#retireSegments(false));
      },
      pendingPostings: new Map(),
      onPending: (users) => this.#postings.schedule(users),
      reclaimable: this.reclaimable,
    };
    this.#postings = new PostingMerger(this.lock, writer, this.ctx);
    this.#groups = new GroupCommit(this.lock, writer, this.ctx, {
      options,
      ids: new ChunkIdGenerator(cf),
      keywordTerms,
      readCurrent: (locs) => this.readCurrent(locs),
    });
  }

  /**
   * Forgets what this process holds of the database, as a process restart would: empties the frame cache and
   * closes and reopens the key-value store (classic-level memory-maps its table files, and the kernel never drops
   * mapped pages, so without the reopen every region read once stays resident). Frame files stay open: they are
   * read with `pread`, which the page-cache drop makes cold, as SQLite's file stays open. For cold-read benchmarks.
   * REQUIRES: no operation in flight on this store.
   */
  async reopenForColdRead(): Promise<void> {
    this.cache.clear();
    this.decodedEntries.clear();
    this.candidateMemo.clear();
    await this.db.close();
    await this.db.open();
    for (const family of Object.values(this.cf)) await family.open();
  }

  /**
   * Opens (creating if needed) the engine on an abstract-level database that is already open. `explicit` names
   * the layout options the caller set (`openEngineMeta`). `keywordTerms` derives the matching terms every write
   * stores with a live entry's keywords (null: none are stored; readers derive them).
   */
  static async open(
    db: AnyLevel,
    given: ResolvedStoreOptions,
    explicit: ReadonlySet<string> = new Set(),
    framesDir: string | null = null,
    keywordTerms: KeywordTermsDerivation | null = null,
  ): Promise<StoreCore> {
    const cf = openFamilies(db);
    const writer = new BatchWriter(db, given);
    const format = await checkDatabaseFormat(cf);
    const isNew = (await cf.meta.get(META_ENGINE_KEY)) === undefined;
    // Database format 6 (user-first keys): an older database is rewritten in place first (format-upgrade.ts).
    if (!isNew && (format === null || format.format < 6)) await upgradeToFormat6(cf, writer, given.readOnly);
    const { meta, options } = await openEngineMeta(cf, writer, given, explicit);
    const frames = await openFrameStore(cf, writer, options, framesDir, isNew);
    const fencing = partitionFencing(db);
    const users = new UserStates(cf, fencing, isPartitioned(db));
    // The candidate index (database formats 2 and 3): upgraded, or built from the directory, here. Read-only, an
    // index-less database is read by scanning the directory instead.
    const index = await openCandidateIndex(cf, writer, options.readOnly);
    if (!options.readOnly) await recordDatabaseFormat(cf, writer, format);
    // The allocator last: it remembers the global partition's version, which the records written above move (read
    // earlier, a new store's first range would meet a conflict of its own making).
    const ids = await BlockIdAllocator.open(cf.alloc, writer, fencing);
    const core = new StoreCore(db, cf, options, writer, meta, users, ids, frames, keywordTerms);
    await core.#retireSegments(true);
    core.indexReady = index.ready;
    for (const [user, n] of index.pending) core.ctx.pendingPostings.set(user, n);
    return core;
  }

  /**
   * Deletes frame files none of whose blocks holds data: at open every segment file is checked (a crash may have
   * come between a release and the deletion); afterwards those that releases emptied, after a grace period.
   * A failure is left for the next attempt (the space stays allocated; nothing is lost).
   */
  async #retireSegments(all: boolean): Promise<void> {
    const frames = this.frames;
    if (this.options.readOnly) return;
    try {
      await frames.erase(false);
      // Block infos are keyed by user (format 6), so a block is not looked up by id: when every segment is checked
      // (at open), one scan of the infos lists the blocks that hold data, made only if the store asks.
      let held: Promise<Set<number>> | null = null;
      const blocksHoldingData = (): Promise<Set<number>> =>
        (held ??= (async () => {
          const out = new Set<number>();
          for await (const info of listBlockInfos(this.cf)) if (info.state !== 'released') out.add(info.blockId);
          return out;
        })());
      await frames.retire(this.ctx.ids.next, all, blocksHoldingData);
    } catch {
      // Left for the next attempt (the space stays allocated; nothing is lost).
    }
  }

  /** Zeroes, now, what released blocks left in frame files (purge; docs/format.md "Frame files"). REQUIRES: the write lock. */
  async eraseReleasedFrames(): Promise<void> {
    await this.frames.erase(true);
  }

  /** Closes the frame files (after the key-value store closed). */
  async closeFrames(): Promise<void> {
    await this.frames.close();
  }

  /** The background posting merges: pending chunks and failures (stats). */
  postingMergeReport(): PostingMergeReport {
    return this.#postings.report();
  }

  /** False only for a database opened read-only that has no candidate index yet (format 1). */
  indexReady = true;

  /**
   * The version recall's candidate memo is keyed on: the user's partition version on a backend with versions
   * (another process may write), the batch writer's generation when only this process writes, and none on a
   * partitioned backend without versions (the memo is then not used).
   */
  readonly #candidateCaches: CandidateCaches;

  /** A bounded candidate set through the candidate index (candidate-reader.ts). REQUIRES: `indexReady`. */
  candidates(q: CandidateQuery): Promise<CandidateRead> {
    // With other processes writing (fencing), this process's pending counts bound nothing: the scan reads them all.
    // Index then directory: on a backend without snapshots, retried when another process's commit lands in between.
    return readConsistent(this.ctx.users.versionReader, q.userId, () => readCandidates(this.db, this.cf, q, this.ctx.users.fenced ? undefined : (user) => this.ctx.pendingPostings.get(user) ?? 0, this.#candidateCaches));
  }

  /**
   * The reclaimable blocks as the last committed batch left them, built with one scan of the block infos (under the
   * write lock) on first use; null when the set gave up its memory bound (the caller scans the block infos).
   */
  async reclaimableBlocks(): Promise<ReclaimableBlock[] | null> {
    const set = this.reclaimable;
    if (!set.ready && !set.overflowed) await this.lock.run(() => set.build(this.cf.blockInfo));
    return set.ready ? [...set.blocks()] : null;
  }

  /**
   * The database's accounting totals: the sum over users' records (plus the counters a format-5 database carried
   * over, and this process's reads and model usage not yet persisted). One range read of the accounting records.
   * `usageByUser` receives each user's model usage.
   */
  accountingTotals(snapshot?: AbstractSnapshot, usageByUser?: Map<string, readonly ModelUsageRow[]>): Promise<Accounting> {
    return this.ctx.users.totals(snapshot, usageByUser);
  }

  /**
   * Charges model usage to the user: held in memory and persisted with the user's accounting by the user's next
   * commit (a compaction's own commit, when noted before it) or by close. Needs no lock.
   */
  noteModelUsage(userId: string, rows: readonly ModelUsageRow[]): void {
    this.ctx.users.noteUsage(userId, rows);
  }

  /**
   * Runs `fn` with a fresh transaction of `userId` under the write lock and commits it: one batch in the user's
   * partition. On a partitioned backend with fencing, a conflict (another process changed the user) drops what this
   * process cached of the user and runs `fn` again on a fresh transaction (fenced-write.ts), so `fn` must only
   * stage (it may run more than once). A transaction that stages nothing for a user with nothing stored (no
   * accounting record, which every chunk write leaves, and no active turn) writes nothing and drops the user's
   * pending read counters and model usage; the checks read at or after the version the batch would be fenced at, so
   * a purge by another process is seen, or makes the batch conflict and the retry sees it.
   */
  transact<T>(userId: string, fn: (txn: Txn) => Promise<T>): Promise<T> {
    return this.lock.run(() =>
      retryOnConflict(this.ctx, userId, async () => {
        this.writer.check();
        const state = await this.ctx.users.load(userId);
        const txn = new Txn(this.ctx, userId, state);
        const out = await fn(txn);
        // Nothing staged for a user with nothing stored (purged by another process since this one read it, or never
        // written): committing would only write the accounting record, recreating a key that names the user.
        if (txn.stagesNothing && !state.stored && !(await this.#hasActiveTurns(userId))) this.ctx.users.discardPending(userId);
        else await txn.commit();
        return out;
      }),
    );
  }

  /**
   * Reserves `n` consecutive block ids for blocks built outside a transaction (GC workers). The ids are taken
   * in memory at once; the transaction that writes the blocks secures them with every other id taken
   * (`BlockIdAllocator.secure`). Unused reserved ids are simply never used.
   */
  reserveBlockIds(n: number): Promise<{ first: number; epoch: number }> {
    return this.lock.run(async () => ({ first: this.ctx.ids.reserve(n), epoch: this.ctx.ids.epoch }));
  }

  /** The block id allocator's epoch: reserved ids are valid only while it is the one `reserveBlockIds` returned. */
  get blockIdEpoch(): number {
    return this.ctx.ids.epoch;
  }

  /**
   * Persists the retrieval counters that reads bumped in memory since the user's last write (reads write nothing),
   * and the model usage noted since, one transaction per such user. Called by close(); a no-op when nothing changed or the store is read-only.
   * A user with nothing stored (never written, or purged since, by this process or another) gets no record: its
   * pending counters are dropped (`transact`), so a close never writes a key naming a purged user.
   */
  async flushCounters(): Promise<void> {
    if (this.options.readOnly) return;
    for (const userId of this.ctx.users.usersWithPendingCounters()) {
      if (this.writer.failure !== null) return;
      await this.transact(userId, async () => undefined);
    }
  }

  /** Whether the user has any active-chunk turn stored (one key read at most). */
  async #hasActiveTurns(userId: string): Promise<boolean> {
    for await (const _ of this.cf.active.keys({ ...prefixRange(userId), limit: 1 })) return true;
    return false;
  }

  /**
   * Writes one batch of the user's partition that carries no accounting (`build` returns its ops and runs again
   * after a conflict on a fenced backend; fenced-write.ts). REQUIRES: the write lock.
   */
  writeUserBatch(userId: string, build: () => Promise<readonly BatchOp[]>): Promise<void> {
    return writeUserBatch(this.ctx, userId, build);
  }

  /** Forgets every state this process caches of `userId` (another process changed it). REQUIRES: the write lock. */
  async #forgetUser(userId: string): Promise<void> {
    this.ctx.users.forget(userId);
    const ctx = this.ctx;
    const own = openBlockKey(userId, null);
    for (const k of [...ctx.openRefs.keys()]) if (k === own || k.startsWith(own + SEP)) ctx.openRefs.delete(k);
    for (const [id, info] of [...ctx.openInfos]) if (info.userId === userId) ctx.openInfos.delete(id);
    this.reclaimable.forgetUser(userId);
    // The pending count schedules the posting merge: recounted from the user's pending keys (one range read).
    let pending = 0;
    for await (const _ of this.cf.candidates.keys(pendingRange(userId))) pending++;
    if (pending > 0) ctx.pendingPostings.set(userId, pending);
    else ctx.pendingPostings.delete(userId);
  }


  /** Reads record bytes at slots in the current (committed) state. Only under the write lock. */
  async readCurrent(locs: readonly UserSlot[]): Promise<SlotReadResult> {
    return readSlots(this.frames, this.cache, locs);
  }

  /**
   * Applies mutations of one user atomically (group commit, `group-commit.ts`). Any error leaves the store
   * unchanged.
   *
   * `extra`, when given, runs after every mutation is staged and before the commit, inside the same Txn and under
   * the same write lock: whatever it stages (typically `txn.raw(...)` ops on another column family, such as the
   * deletion of the active turns a compaction consumed) lands in the same LevelDB batch as the chunk changes, or
   * not at all if it throws.
   */
  write(userId: string, mutations: readonly Mutation[], extra?: WriteExtra): Promise<MutationResult[]> {
    return this.#groups.write(userId, mutations, extra);
  }

  /** Decodes a record and checks it is the one the directory entry promises (`read-path.ts`). */
  checkRecord(bytes: Uint8Array, entry: DirEntry, userId: string, sessionId: string, chunkId: string): ChunkRecord {
    return checkRecord(bytes, entry, userId, sessionId, chunkId);
  }

  /** Materializes chunks from one consistent snapshot (`read-path.ts`). */
  read(userId: string, refs: readonly ChunkRef[]): Promise<ReadResult> {
    // Directory then frames: on a backend without snapshots, retried when another process's commit lands in between.
    return readConsistent(this.ctx.users.versionReader, userId, () => readChunks(this, this.ctx.users.readCounters(userId), () => this.options.now(), userId, refs));
  }

  /** Location hints of chunks, from the directory (`read-path.ts`). */
  locate(userId: string, refs: readonly ChunkRef[]): Promise<(LocatedRef | null)[]> {
    return locateChunks(this, () => this.options.now(), userId, refs);
  }

  /** Fetch by slot: reads the hinted slots without the directory, the stale ones through it (`read-path.ts`). */
  readLocated(userId: string, located: readonly LocatedRef[]): Promise<ReadResult> {
    return readLocated(this, this.ctx.users.readCounters(userId), () => this.options.now(), userId, located);
  }

  /** Directory entries in key order (`listEntries`, `read-path.ts`). */
  entries(userId: string | null, sessionId: string | null, snapshot?: AbstractSnapshot): AsyncGenerator<ListedEntry> {
    return listEntries(this.cf, userId, sessionId, snapshot);
  }

  /** Every block info (released ones included) in block id order, from the committed state or `snapshot`. */
  blockInfos(snapshot?: AbstractSnapshot): AsyncGenerator<BlockInfo> {
    return listBlockInfos(this.cf, snapshot);
  }

  /** The checked records of live directory entries, read from `snapshot` (`readLiveRecords`, `read-path.ts`). */
  liveRecords(entries: readonly ListedEntry[], snapshot: AbstractSnapshot): Promise<ChunkRecord[]> {
    return readLiveRecords(this, entries, snapshot);
  }

  /** Distinct users (skip-scan of the directory: one seek per user). */
  users(): Promise<string[]> {
    return listUsers(this.cf);
  }

  /** Distinct sessions of a user. */
  sessions(userId: string): Promise<string[]> {
    return listSessions(this.cf, userId);
  }

  /** Co-access observations not yet persisted (co-access-buffer.ts). */
  readonly coAccessBuffer = new CoAccessBuffer();

  /**
   * Adds one co-access observation: each chunk's access count, and each pair's. Counted in memory; every
   * `CO_ACCESS_FLUSH_EVERY` observations are persisted as one batch of merged increments (and the rest at close).
   */
  recordCoAccess(userId: string, refs: readonly ChunkRef[]): Promise<void> {
    const keys = coAccessKeys(userId, refs);
    if (keys.length === 0) return Promise.resolve();
    this.coAccessBuffer.add(userId, keys, this.options.now());
    return this.coAccessBuffer.observations >= CO_ACCESS_FLUSH_EVERY ? this.flushCoAccess() : Promise.resolve();
  }

  /** Persists the buffered co-access counts as one batch (a no-op when none or the store cannot write). */
  flushCoAccess(): Promise<void> {
    return this.lock.run(async () => {
      if (this.options.readOnly || this.writer.failure !== null || this.coAccessBuffer.observations === 0) return;
      // Users whose batch lost to other writers every time keep their increments for the next flush.
      const unwritten = await persistCoAccess(this.ctx, this.coAccessBuffer.drain());
      for (const [userId, increments] of unwritten) this.coAccessBuffer.restore(userId, increments);
    });
  }

  /** Co-access statistics among the given chunk refs, or all of a user's (`readCoAccess`, `co-access.ts`). */
  coAccess(userId: string, ids?: readonly string[]): Promise<{ accesses: Map<string, number>; pairs: Map<string, number> }> {
    return readCoAccess(this.cf, this.coAccessBuffer, userId, ids);
  }
}

/**
 * Frames in frame files (database format 4) for a database that has the frames marker, or that is created now on a
 * directory; otherwise in the key-value store (databases written before frame files, and in-memory backends).
 */
async function openFrameStore(cf: ColumnFamilies, writer: BatchWriter, options: ResolvedStoreOptions, framesDir: string | null, isNew: boolean): Promise<FrameStore> {
  const kv = new KvFrameStore(cf.blocks);
  const marker = await cf.meta.get(META_FRAMES_KEY);
  if (marker === undefined && !(isNew && framesDir !== null && !options.readOnly)) return kv;
  if (framesDir === null) {
    throw new AkashicError('AKASHIC_INVALID_ARGUMENT', 'this database keeps its block frames in files beside it: open it with options.path, or a classic-level handle');
  }
  if (marker === undefined) {
    const v = Buffer.alloc(4);
    v.writeUInt32LE(1, 0);
    await writer.write([{ type: 'put', sublevel: cf.meta, key: META_FRAMES_KEY, value: v }]);
  } else if (marker.length !== 4 || marker.readUInt32LE(0) !== 1) {
    throw new AkashicError('AKASHIC_FORMAT_VERSION', `frame files of layout ${marker.length === 4 ? marker.readUInt32LE(0) : '?'}; this engine reads layout 1`);
  }
  return new FileFrameStore({ dir: framesDir, durability: options.durability === 'relaxed' ? 'relaxed' : 'sync', readOnly: options.readOnly, kv, now: () => Date.now() });
}
