import type { AbstractSnapshot } from 'abstract-level';
import { decodeTime, monotonicFactory, type ULIDFactory } from 'ulid';
import { BlockCache } from '../block/block-cache.js';
import { AkashicError, corruption } from '../errors.js';
import { decodeAccounting, emptyAccounting, encodeAccounting, type Accounting } from '../record/accounting.js';
import { decodeChunkRecord, encodeChunkRecord, type ChunkRecord } from '../record/chunk-record.js';
import { decodeBlockInfo, type BlockInfo } from '../record/block-info.js';
import { decodeDirEntry, isExpired, type DirEntry, type SlotRef } from '../record/dir-entry.js';
import { decodeAllocator, decodeCoAccess, decodeEngineMeta, encodeCoAccess, encodeEngineMeta, encodeExpiryMark, type EngineMeta } from '../record/engine-records.js';
import { FORMAT_VERSION } from '../record/envelope.js';
import { readSlots, type SlotReadResult } from './block-reader.js';
import { confirmMisses } from './resilient-scan.js';
import { LIMITS, type CheckedContent, type ChunkRef } from './chunk-input.js';
import { openFamilies, type ColumnFamilies } from './column-families.js';
import {
  ALLOC_NEXT_KEY,
  blockKey,
  META_ACCOUNTING_KEY,
  META_ENGINE_KEY,
  META_INDEX_KEY,
  SEP,
  accessKey,
  afterPrefix,
  dirKey,
  expiryKey,
  orderedPair,
  pairKey,
  parseDirKey,
  prefixRange,
  refString,
} from './keys.js';
import { BatchWriter } from './batch-writer.js';
import type { AnyLevel, ResolvedStoreOptions } from './options.js';
import { Txn, type TxnContext } from './txn.js';
import { readCandidates, type CandidateQuery, type CandidateRead } from './candidate-reader.js';
import { rebuildCandidateIndex } from './index-rebuild.js';
import { WriteLock } from './write-lock.js';

export const ENGINE_VERSION = '0.1.0';

/** A chunk's expiry as a write gives it: an absolute time, a time to live from the commit, or null for never. */
export type Expiry = { readonly at: number } | { readonly ttlMs: number } | null;

function expiryAt(e: Expiry, now: number): number | undefined {
  if (e === null) return undefined;
  return Math.ceil('at' in e ? e.at : now + e.ttlMs);
}

/** A directory entry without its attributes and vector (tombstones keep no content). */
export function withoutAttributes(e: DirEntry): DirEntry {
  const { attributes: _a, embedding: _e, ...rest } = e;
  return rest;
}

/** A record with its expiry set to `at` (absent when undefined). */
function withExpiry(r: ChunkRecord, at: number | undefined): ChunkRecord {
  const { expiresAt: _old, ...rest } = r;
  return at === undefined ? rest : { ...rest, expiresAt: at };
}

/** One change inside an atomic write. All mutations of one write belong to one user. */
export type Mutation =
  | { readonly op: 'put'; readonly sessionId: string; readonly chunkId?: string; readonly createdAt?: number; readonly content: CheckedContent; readonly expiry?: Expiry }
  | {
      readonly op: 'update';
      readonly sessionId: string;
      readonly chunkId: string;
      readonly expectVersion?: number;
      readonly content: Partial<CheckedContent>;
      readonly expiry?: Expiry;
    }
  | { readonly op: 'delete'; readonly sessionId: string; readonly chunkId: string; readonly expectVersion?: number; readonly supersededBy?: string }
  | { readonly op: 'restore'; readonly record: ChunkRecord };

export interface MutationResult {
  readonly op: Mutation['op'];
  readonly sessionId: string;
  readonly chunkId: string;
  /** Version after the write (for delete: the deleted version). `skipped` restores changed nothing. */
  readonly version: number;
  readonly skipped?: boolean;
}

export interface ReadResult extends Omit<SlotReadResult, 'records'> {
  /** One per requested ref, in request order; null where the chunk does not exist or is deleted. */
  readonly chunks: (ChunkRecord | null)[];
}

export interface ListedEntry {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly entry: DirEntry;
}

/** Mutations per group commit (a single larger write still commits, alone). */
const MAX_GROUP_MUTATIONS = 4096;

interface PendingWrite {
  readonly userId: string;
  readonly mutations: readonly Mutation[];
  readonly extra: ((txn: Txn) => void | Promise<void>) | undefined;
  readonly resolve: (r: MutationResult[]) => void;
  readonly reject: (err: unknown) => void;
  /** Directory keys the write names up front (puts without an id get fresh ids and conflict with nothing). */
  readonly keys: readonly string[];
}

function knownKeys(userId: string, mutations: readonly Mutation[]): string[] {
  const out: string[] = [];
  for (const m of mutations) {
    if (m.op === 'restore') out.push(dirKey(userId, m.record.sessionId, m.record.chunkId));
    else if (m.op !== 'put' || m.chunkId !== undefined) out.push(dirKey(userId, m.sessionId, m.chunkId!));
  }
  return out;
}

/**
 * The internal engine: trusts its inputs (the public AkashicStore validates them), serializes every mutation
 * under one write lock, and reads from snapshots.
 * @internal
 */
export class StoreCore {
  readonly db: AnyLevel;
  readonly cf: ColumnFamilies;
  readonly options: ResolvedStoreOptions;
  readonly lock = new WriteLock();
  readonly cache: BlockCache;
  readonly ctx: TxnContext;
  /** Every write goes through it; it latches the store read-only after a storage write error. */
  readonly writer: BatchWriter;
  meta: EngineMeta;
  readonly #ulids = new Map<string, { f: ULIDFactory; last: string }>();

  private constructor(
    db: AnyLevel,
    cf: ColumnFamilies,
    options: ResolvedStoreOptions,
    writer: BatchWriter,
    meta: EngineMeta,
    accounting: Accounting,
    nextBlockId: number,
  ) {
    this.db = db;
    this.writer = writer;
    this.options = options;
    this.cf = cf;
    this.cache = new BlockCache(options.cacheBytes);
    this.meta = meta;
    const cache = this.cache;
    this.ctx = {
      cf: this.cf,
      options,
      writer,
      accounting,
      nextBlockId,
      openRefs: new Map(),
      openInfos: new Map(),
      onReleased(ids) {
        for (const id of ids) cache.evictBlock(blockKey(id) + '.');
      },
    };
  }

  /**
   * Forgets what this process holds of the database, as a process restart would: empties the frame cache and
   * closes and reopens the key-value store (classic-level memory-maps its table files, and the kernel never drops
   * mapped pages, so without the reopen every region read once stays resident). For cold-read benchmarks.
   * REQUIRES: no operation in flight on this store.
   */
  async reopenForColdRead(): Promise<void> {
    this.cache.clear();
    await this.db.close();
    await this.db.open();
    for (const family of Object.values(this.cf)) await family.open();
  }

  /** Opens (creating if needed) the engine on an abstract-level database that is already open. */
  /**
   * `explicit` names the layout options the caller set; the others come from the settings recorded when the
   * database was created (a database keeps its block capacity, byte budget and session mixing unless told
   * otherwise).
   */
  static async open(db: AnyLevel, given: ResolvedStoreOptions, explicit: ReadonlySet<string> = new Set()): Promise<StoreCore> {
    let options = given;
    const cf = openFamilies(db);
    const writer = new BatchWriter(db, given);
    const metaValue = await cf.meta.get(META_ENGINE_KEY);
    let meta: EngineMeta;
    if (metaValue === undefined) {
      if (options.readOnly) throw new AkashicError('AKASHIC_NOT_FOUND', 'no Akashic database here (opened read-only, so none was created)');
      meta = {
        createdAt: options.now(),
        engineVersion: ENGINE_VERSION,
        blockCapacity: options.blockCapacity,
        blockMaxBytes: options.blockMaxBytes,
        crossSessionBlocks: options.crossSessionBlocks,
      };
      await writer.write([{ type: 'put', sublevel: cf.meta, key: META_ENGINE_KEY, value: encodeEngineMeta(meta) }]);
    } else {
      if (metaValue.length > 4 && metaValue[4] !== FORMAT_VERSION) {
        throw new AkashicError('AKASHIC_FORMAT_VERSION', `database format version ${metaValue[4]}; this engine reads ${FORMAT_VERSION}`);
      }
      meta = decodeEngineMeta(metaValue, 'engine meta');
      options = {
        ...options,
        blockCapacity: explicit.has('blockCapacity') ? options.blockCapacity : meta.blockCapacity,
        blockMaxBytes: explicit.has('blockMaxBytes') ? options.blockMaxBytes : meta.blockMaxBytes,
        crossSessionBlocks: explicit.has('crossSessionBlocks') ? options.crossSessionBlocks : meta.crossSessionBlocks,
      };
      const changed =
        options.blockCapacity !== meta.blockCapacity || options.blockMaxBytes !== meta.blockMaxBytes || options.crossSessionBlocks !== meta.crossSessionBlocks;
      if (changed && !options.readOnly) {
        // An explicit setting becomes the database's own from now on; blocks already written keep their shape.
        meta = { ...meta, blockCapacity: options.blockCapacity, blockMaxBytes: options.blockMaxBytes, crossSessionBlocks: options.crossSessionBlocks };
        await writer.write([{ type: 'put', sublevel: cf.meta, key: META_ENGINE_KEY, value: encodeEngineMeta(meta) }]);
      }
    }
    const acctValue = await cf.meta.get(META_ACCOUNTING_KEY);
    const accounting = acctValue === undefined ? emptyAccounting() : decodeAccounting(acctValue, 'accounting');
    const allocValue = await cf.alloc.get(ALLOC_NEXT_KEY);
    const nextBlockId = allocValue === undefined ? 1 : decodeAllocator(allocValue, 'allocator state');
    // Database format 2 adds the candidate index; a format-1 database (or an interrupted rebuild) gets it built
    // here. Read-only, an index-less database is read by scanning the directory instead.
    let indexReady = (await cf.meta.get(META_INDEX_KEY)) !== undefined;
    if (!indexReady && !options.readOnly) {
      await rebuildCandidateIndex(cf, writer);
      indexReady = true;
    }
    const core = new StoreCore(db, cf, options, writer, meta, accounting, nextBlockId);
    core.indexReady = indexReady;
    return core;
  }

  /** False only for a database opened read-only that has no candidate index yet (format 1). */
  indexReady = true;

  /** A bounded candidate set through the candidate index (candidate-reader.ts). REQUIRES: `indexReady`. */
  candidates(q: CandidateQuery): Promise<CandidateRead> {
    return readCandidates(this.db, this.cf, q);
  }

  get accounting(): Accounting {
    return this.ctx.accounting;
  }

  /** Runs `fn` with a fresh transaction under the write lock and commits it. */
  transact<T>(fn: (txn: Txn) => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      this.writer.check();
      const txn = new Txn(this.ctx);
      const out = await fn(txn);
      await txn.commit();
      return out;
    });
  }

  /** Keeps generated ids past an id given from outside (explicit put, restore) in a namespace already in use. */
  #noteId(userId: string, sessionId: string, chunkId: string): void {
    const g = this.#ulids.get(userId + SEP + sessionId);
    if (g !== undefined && chunkId > g.last) g.last = chunkId;
  }

  async #nextChunkId(userId: string, sessionId: string, now: number): Promise<string> {
    const ns = userId + SEP + sessionId;
    let g = this.#ulids.get(ns);
    if (g === undefined) {
      let last = '';
      for await (const k of this.cf.dir.keys({ ...prefixRange(userId, sessionId), reverse: true, limit: 1 })) {
        last = parseDirKey(k)?.chunkId ?? '';
      }
      g = { f: monotonicFactory(), last };
      this.#ulids.set(ns, g);
    }
    const lastTime = g.last === '' ? 0 : decodeTime(g.last);
    let id = g.f(Math.max(now, lastTime));
    if (id <= g.last) id = g.f(lastTime + 1);
    g.last = id;
    return id;
  }

  /**
   * Reserves `n` consecutive block ids for blocks built outside a transaction (GC workers). The ids are taken
   * in memory at once; the transaction that writes the blocks persists the allocator past them
   * (`Txn.noteReserved`). Unused reserved ids are simply never used.
   */
  reserveBlockIds(n: number): Promise<number> {
    return this.lock.run(async () => {
      const first = this.ctx.nextBlockId;
      this.ctx.nextBlockId += n;
      return first;
    });
  }

  /**
   * Persists the retrieval counters that reads bumped in memory since the last write (reads write nothing).
   * Called by close(); a no-op when nothing changed or the store is read-only.
   */
  flushCounters(): Promise<void> {
    return this.lock.run(async () => {
      if (this.options.readOnly || this.writer.failure !== null) return;
      const stored = await this.cf.meta.get(META_ACCOUNTING_KEY);
      const a = stored === undefined ? emptyAccounting() : decodeAccounting(stored, 'accounting');
      if (a.retrievals === this.ctx.accounting.retrievals && a.retrievalBlocks === this.ctx.accounting.retrievalBlocks) return;
      await this.writer.write([{ type: 'put', sublevel: this.cf.meta, key: META_ACCOUNTING_KEY, value: encodeAccounting(this.ctx.accounting) }]);
    });
  }

  /** Reads record bytes at slots in the current (committed) state. Only under the write lock. */
  async readCurrent(locs: readonly SlotRef[]): Promise<SlotReadResult> {
    return readSlots(this.cf.blocks, this.cache, locs);
  }

  /**
   * Applies mutations of one user atomically. Any error leaves the store unchanged.
   *
   * `extra`, when given, runs after every mutation is staged and before the commit, inside the same Txn and under
   * the same write lock: whatever it stages (typically `txn.raw(...)` ops on another column family, such as the
   * deletion of the active turns a compaction consumed) lands in the same LevelDB batch as the chunk changes, or
   * not at all if it throws.
   */
  write(userId: string, mutations: readonly Mutation[], extra?: (txn: Txn) => void | Promise<void>): Promise<MutationResult[]> {
    return new Promise<MutationResult[]>((resolve, reject) => {
      this.#pending.push({ userId, mutations, extra, resolve, reject, keys: knownKeys(userId, mutations) });
      if (!this.#groupScheduled) {
        this.#groupScheduled = true;
        // The runner never rejects: each write's outcome goes to its own promise.
        void this.lock.run(() => this.#runGroups());
      }
    });
  }

  /** Writes queued for the next group commit, in arrival order. */
  #pending: PendingWrite[] = [];
  #groupScheduled = false;

  /**
   * Group commit. REQUIRES: the write lock. Takes every write queued so far and commits them in groups, in
   * arrival order: a group is one Txn, so one LevelDB batch and (durability 'sync') one fsync for all of its writes.
   * A group ends before a write that names a chunk an earlier write of the group already touches (so a write never
   * sees another's uncommitted staging) and at `MAX_GROUP_MUTATIONS`.
   */
  async #runGroups(): Promise<void> {
    this.#groupScheduled = false;
    const queue = this.#pending;
    this.#pending = [];
    let i = 0;
    while (i < queue.length) {
      const group: PendingWrite[] = [];
      const touched = new Set<string>();
      let size = 0;
      while (i < queue.length) {
        const w = queue[i]!;
        if (group.length > 0 && (size + w.mutations.length > MAX_GROUP_MUTATIONS || w.keys.some((k) => touched.has(k)))) break;
        for (const k of w.keys) touched.add(k);
        size += w.mutations.length;
        group.push(w);
        i++;
      }
      await this.#commitGroup(group);
    }
  }

  /**
   * Stages each write of `group` behind a savepoint (a write that fails is rolled back and rejected alone), then
   * commits what remains in one batch and acknowledges every write only once that batch is durable. When the commit
   * fails before the batch reached LevelDB, the writes are retried one by one, so a write that cannot be committed
   * fails alone; a failure of the batch itself fails the whole group (nothing of it applied).
   */
  async #commitGroup(group: readonly PendingWrite[]): Promise<void> {
    try {
      this.writer.check(); // latched after a storage write error: refuse before staging anything
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    const txn = new Txn(this.ctx);
    const staged: { w: PendingWrite; results: MutationResult[] }[] = [];
    for (const w of group) {
      const sp = txn.savepoint();
      try {
        staged.push({ w, results: await this.#stageWrite(txn, w) });
      } catch (err) {
        txn.rollback(sp);
        w.reject(err);
      }
    }
    if (staged.length === 0) return;
    try {
      await txn.commit();
    } catch (err) {
      if (!txn.batchAttempted && staged.length > 1) {
        for (const s of staged) await this.#commitGroup([s.w]);
        return;
      }
      for (const s of staged) s.w.reject(err);
      return;
    }
    for (const s of staged) s.w.resolve(s.results);
  }

  async #stageWrite(txn: Txn, w: PendingWrite): Promise<MutationResult[]> {
    const { userId, mutations, extra } = w;
    const results: MutationResult[] = [];
    const seen = new Set<string>();
    for (const m of mutations) {
      const sessionId = m.op === 'restore' ? m.record.sessionId : m.sessionId;
      const chunkId = m.op === 'restore' ? m.record.chunkId : m.op === 'put' ? (m.chunkId ?? (await this.#nextChunkId(userId, sessionId, txn.now))) : m.chunkId;
      const key = dirKey(userId, sessionId, chunkId);
      if (seen.has(key)) throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `chunk ${sessionId}/${chunkId} appears twice in one write`);
      seen.add(key);
      results.push(await this.#apply(txn, userId, sessionId, chunkId, key, m));
    }
    if (extra !== undefined) await extra(txn);
    return results;
  }

  async #apply(txn: Txn, userId: string, sessionId: string, chunkId: string, key: string, m: Mutation): Promise<MutationResult> {
    // An id this engine generated is past every key of its namespace: nothing to read.
    if (m.op === 'put' && m.chunkId === undefined) txn.assumeAbsent(key);
    else this.#noteId(userId, sessionId, chunkId);
    const existing = await txn.dirEntry(key);
    // An expired chunk is gone for every caller, even before the sweep deletes it.
    const live = existing !== null && existing.state === 'live' && !isExpired(existing, txn.now) ? existing : null;
    const check = (): DirEntry => {
      if (live === null) throw new AkashicError('AKASHIC_NOT_FOUND', `chunk ${sessionId}/${chunkId} of user ${JSON.stringify(userId)} does not exist`);
      if ('expectVersion' in m && m.expectVersion !== undefined && m.expectVersion !== live.version) {
        throw new AkashicError('AKASHIC_CONFLICT', `chunk ${sessionId}/${chunkId} is at version ${live.version}, expected ${m.expectVersion}`);
      }
      return live;
    };
    switch (m.op) {
      case 'put': {
        if (existing !== null) throw new AkashicError('AKASHIC_CONFLICT', `chunk ${sessionId}/${chunkId} already exists`);
        const at = m.createdAt ?? txn.now;
        const dflt = this.options.defaultTtlMs;
        const expiry = m.expiry !== undefined ? m.expiry : dflt > 0 ? { ttlMs: dflt } : null;
        const record = withExpiry({ userId, sessionId, chunkId, version: 1, createdAt: at, updatedAt: at, ...m.content }, expiryAt(expiry, txn.now));
        this.#stage(txn, key, record, true);
        return { op: 'put', sessionId, chunkId, version: 1 };
      }
      case 'update': {
        const cur = check();
        if (cur.version >= LIMITS.version) {
          throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `chunk ${sessionId}/${chunkId} is at the highest version ${LIMITS.version}; it cannot be updated`);
        }
        const old = await this.#readRecord(cur, userId, sessionId, chunkId);
        await txn.invalidate(cur.location!, cur.recordBytes);
        this.#unindexExpiry(txn, userId, sessionId, chunkId, cur);
        const next: ChunkRecord = { ...old, ...m.content, version: cur.version + 1, updatedAt: Math.max(txn.now, old.updatedAt) };
        const record = m.expiry === undefined ? next : withExpiry(next, expiryAt(m.expiry, txn.now));
        this.#stage(txn, key, record, true);
        return { op: 'update', sessionId, chunkId, version: record.version };
      }
      case 'delete': {
        const cur = check();
        await txn.invalidate(cur.location!, cur.recordBytes);
        this.#unindexExpiry(txn, userId, sessionId, chunkId, cur);
        // A tombstone keeps no content: its keywords (words of the deleted text) go with the record.
        txn.putDir(key, { ...withoutAttributes(cur), state: 'deleted', location: null, keywords: [], supersededBy: m.supersededBy ?? null, deletedAt: txn.now });
        return { op: 'delete', sessionId, chunkId, version: cur.version };
      }
      case 'restore': {
        if (existing !== null && existing.version >= m.record.version) {
          return { op: 'restore', sessionId, chunkId, version: existing.version, skipped: true };
        }
        if (existing !== null && existing.state === 'live') {
          await txn.invalidate(existing.location!, existing.recordBytes);
          this.#unindexExpiry(txn, userId, sessionId, chunkId, existing);
        }
        this.#stage(txn, key, { ...m.record, userId }, true);
        return { op: 'restore', sessionId, chunkId, version: m.record.version };
      }
    }
  }

  #unindexExpiry(txn: Txn, userId: string, sessionId: string, chunkId: string, e: DirEntry): void {
    if (e.expiresAt !== undefined) txn.raw({ type: 'del', sublevel: this.cf.expiry, key: expiryKey(e.expiresAt, userId, sessionId, chunkId) });
  }

  #stage(txn: Txn, key: string, record: ChunkRecord, ingested: boolean): void {
    const bytes = encodeChunkRecord(record);
    if (record.expiresAt !== undefined) {
      txn.raw({ type: 'put', sublevel: this.cf.expiry, key: expiryKey(record.expiresAt, record.userId, record.sessionId, record.chunkId), value: encodeExpiryMark() });
    }
    if (ingested) txn.acct.logicalBytesIngested += bytes.length;
    txn.acct.chunksWritten++;
    txn.append(record.userId, record.sessionId, bytes, key, {
      state: 'live',
      version: record.version,
      recordBytes: bytes.length,
      tokenCount: record.tokenCount,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      kind: record.kind,
      keywords: record.keywords,
      supersededBy: null,
      deletedAt: null,
      ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }),
      attributes: record.attributes,
      ...(record.embedding === undefined || record.embedding === null ? {} : { embedding: record.embedding }),
    });
  }

  async #readRecord(entry: DirEntry, userId: string, sessionId: string, chunkId: string): Promise<ChunkRecord> {
    const { records } = await this.readCurrent([entry.location!]);
    return this.checkRecord(records[0]!, entry, userId, sessionId, chunkId);
  }

  /** Decodes a record and checks it is the one the directory entry promises. */
  checkRecord(bytes: Uint8Array, entry: DirEntry, userId: string, sessionId: string, chunkId: string): ChunkRecord {
    const loc = entry.location!;
    const what = `record at block ${loc.blockId} frame ${loc.frame} slot ${loc.slot}`;
    const r = decodeChunkRecord(bytes, what);
    if (r.userId !== userId || r.sessionId !== sessionId || r.chunkId !== chunkId || r.version !== entry.version) {
      throw corruption(`${what} holds ${r.userId}/${r.sessionId}/${r.chunkId} v${r.version}, directory expects ${userId}/${sessionId}/${chunkId} v${entry.version}`);
    }
    return r;
  }

  /** Materializes chunks from one consistent snapshot. */
  async read(userId: string, refs: readonly ChunkRef[]): Promise<ReadResult> {
    const snapshot = this.db.snapshot();
    try {
      const keys = refs.map((r) => dirKey(userId, r.sessionId, r.chunkId));
      const values = keys.length === 0 ? [] : await this.cf.dir.getMany(keys, { snapshot });
      // A damaged LevelDB filter block turns point lookups into silent misses; re-check misses with a scan.
      await confirmMisses(this.cf.dir, keys, values, snapshot);
      const entries = values.map((v, i) => (v === undefined ? null : decodeDirEntry(v, `directory entry ${JSON.stringify(keys[i])}`)));
      const wanted: { i: number; entry: DirEntry }[] = [];
      const now = this.options.now();
      entries.forEach((e, i) => {
        if (e !== null && e.state === 'live' && !isExpired(e, now)) wanted.push({ i, entry: e });
      });
      const slots = await readSlots(this.cf.blocks, this.cache, wanted.map((w) => w.entry.location!), snapshot);
      const chunks: (ChunkRecord | null)[] = refs.map(() => null);
      wanted.forEach((w, k) => {
        const ref = refs[w.i]!;
        chunks[w.i] = this.checkRecord(slots.records[k]!, w.entry, userId, ref.sessionId, ref.chunkId);
      });
      this.ctx.accounting.retrievals++;
      this.ctx.accounting.retrievalBlocks += slots.blocksTouched;
      return { chunks, blocksTouched: slots.blocksTouched, framesRead: slots.framesRead, bytesRead: slots.bytesRead };
    } finally {
      await snapshot.close();
    }
  }

  /**
   * Directory entries in key order (within a namespace, ULID order): every user's when `userId` is null, one
   * user's, or one user's session; `sessionId` without `userId` keeps that session of every user. Reads the
   * committed state, or `snapshot` when given (the caller keeps it open until the generator finishes).
   */
  async *entries(userId: string | null, sessionId: string | null, snapshot?: AbstractSnapshot): AsyncGenerator<ListedEntry> {
    const range = userId === null ? {} : sessionId === null ? prefixRange(userId) : prefixRange(userId, sessionId);
    for await (const [k, v] of this.cf.dir.iterator(snapshot === undefined ? range : { ...range, snapshot })) {
      const p = parseDirKey(k);
      if (p === null) throw corruption(`malformed directory key ${JSON.stringify(k)}`);
      if (sessionId !== null && p.sessionId !== sessionId) continue;
      yield { ...p, entry: decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`) };
    }
  }

  /** Every block info (released ones included) in block id order, from the committed state or `snapshot`. */
  async *blockInfos(snapshot?: AbstractSnapshot): AsyncGenerator<BlockInfo> {
    for await (const [k, v] of this.cf.blockInfo.iterator(snapshot === undefined ? {} : { snapshot })) yield decodeBlockInfo(v, `block info ${k}`);
  }

  /**
   * The records of live directory entries, read from `snapshot` (one getMany for the frames not cached), each
   * checked against its entry. Memory: the records plus their frames.
   */
  async liveRecords(entries: readonly ListedEntry[], snapshot: AbstractSnapshot): Promise<ChunkRecord[]> {
    const slots = await readSlots(this.cf.blocks, this.cache, entries.map((e) => e.entry.location!), snapshot);
    return entries.map((e, i) => this.checkRecord(slots.records[i]!, e.entry, e.userId, e.sessionId, e.chunkId));
  }

  /** Distinct users (skip-scan of the directory: one seek per user). */
  async users(): Promise<string[]> {
    const out: string[] = [];
    const it = this.cf.dir.keys();
    try {
      for (;;) {
        const k = await it.next();
        if (k === undefined) break;
        const sep = k.indexOf(SEP);
        if (sep <= 0) {
          // A key without a user part is damage (verify() names it): skip exactly it, so the scan always progresses.
          it.seek(k + '\u0000');
          continue;
        }
        const user = k.slice(0, sep);
        out.push(user);
        it.seek(afterPrefix(user));
      }
    } finally {
      await it.close();
    }
    return out;
  }

  /** Distinct sessions of a user. */
  async sessions(userId: string): Promise<string[]> {
    const out: string[] = [];
    const range = prefixRange(userId);
    const it = this.cf.dir.keys(range);
    try {
      for (;;) {
        const k = await it.next();
        if (k === undefined) break;
        const p = parseDirKey(k);
        if (p === null) {
          it.seek(k + '\u0000'); // damage (verify() names it): skip exactly this key
          continue;
        }
        out.push(p.sessionId);
        it.seek(afterPrefix(userId, p.sessionId));
      }
    } finally {
      await it.close();
    }
    return out;
  }

  /** Adds one co-access observation: each chunk's access count, and each pair's. */
  recordCoAccess(userId: string, refs: readonly ChunkRef[]): Promise<void> {
    const ids = [...new Set(refs.map((r) => refString(r.sessionId, r.chunkId)))].sort();
    if (ids.length === 0) return Promise.resolve();
    return this.lock.run(async () => {
      const keys: string[] = ids.map((id) => accessKey(userId, id));
      for (let a = 0; a < ids.length; a++) for (let b = a + 1; b < ids.length; b++) keys.push(pairKey(userId, ids[a]!, ids[b]!));
      const values = await this.cf.coaccess.getMany(keys);
      const now = this.options.now();
      await this.writer.write(
        keys.map((key, i) => {
          const v = values[i];
          const count = v === undefined ? 1 : decodeCoAccess(v, `co-access ${JSON.stringify(key)}`).count + 1;
          return { type: 'put' as const, sublevel: this.cf.coaccess, key, value: encodeCoAccess({ count, lastAt: now }) };
        }),
      );
    });
  }

  /**
   * Co-access statistics among the given chunk refs (`session\0chunk`), or all of a user's when omitted; pairs keyed
   * by `orderedPair`. The one co-access reader (public `coAccess()`, GC's grouping). With ids, work and memory are
   * proportional to the ids plus the pairs actually recorded among them: each accessed id's pair range
   * (`p\0user\0id\0…`, id the smaller ref of the pair) is scanned, rather than looking up all n(n−1)/2 possible
   * pair keys (half a million for the ~1000 live chunks of one GC batch, almost none of which exist).
   */
  async coAccess(userId: string, ids?: readonly string[]): Promise<{ accesses: Map<string, number>; pairs: Map<string, number> }> {
    const accesses = new Map<string, number>();
    const pairs = new Map<string, number>();
    if (ids !== undefined) {
      if (ids.length === 0) return { accesses, pairs };
      const wanted = new Set(ids);
      const sorted = [...wanted].sort();
      const values = await this.cf.coaccess.getMany(sorted.map((id) => accessKey(userId, id)));
      sorted.forEach((id, i) => {
        const v = values[i];
        if (v !== undefined) accesses.set(id, decodeCoAccess(v, 'co-access').count);
      });
      const base = 'p' + SEP + userId + SEP;
      for (const a of sorted) {
        if (!accesses.has(a)) continue; // only ids that were accessed at all can be in a pair
        for await (const [k, v] of this.cf.coaccess.iterator(prefixRange('p', userId, a))) {
          const b = k.slice(base.length + a.length + 1);
          if (wanted.has(b)) pairs.set(orderedPair(a, b), decodeCoAccess(v, 'co-access').count);
        }
      }
      return { accesses, pairs };
    }
    const aPrefix = 'a' + SEP + userId + SEP;
    for await (const [k, v] of this.cf.coaccess.iterator({ gte: aPrefix, lt: afterPrefix('a', userId) })) {
      accesses.set(k.slice(aPrefix.length), decodeCoAccess(v, 'co-access').count);
    }
    const pPrefix = 'p' + SEP + userId + SEP;
    for await (const [k, v] of this.cf.coaccess.iterator({ gte: pPrefix, lt: afterPrefix('p', userId) })) {
      pairs.set(k.slice(pPrefix.length), decodeCoAccess(v, 'co-access').count);
    }
    return { accesses, pairs };
  }
}
