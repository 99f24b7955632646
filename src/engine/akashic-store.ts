import { join } from 'node:path';
import { FRAMES_DIR } from '../store/file-frame-store.js';
import { classicLevel } from './classic-level-module.js';
import { stat } from 'node:fs/promises';
import { AkashicError, invalidArgument } from '../errors.js';
import type { AffinityModel, CoAccessStats } from '../api/affinity-model.js';
import { type GcReport } from '../api/reports.js';
import type { GcPassOptions } from '../gc/victim-selection.js';
import { DefaultAffinityModel } from '../gc/default-affinity.js';
import { GcPool } from '../gc/gc-pool.js';
import { invalidRatio } from '../record/block-info.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import { activeNamespaces, activeSessions, appendActiveTurns, checkStillActive, readActiveTurns, scanActiveTurns } from '../store/write/active-turns.js';
import type { CandidateRead } from '../store/index/candidate-reader.js';
import { candidateIndexPurgeHook } from '../store/index/candidate-index.js';
import { isExpired } from '../record/dir-entry.js';
import { compileFilter } from '../api/chunk-filter.js';
import { CONTENT_FIELDS, LIMITS, checkContent, checkLocatedRefs, checkRef, checkRefs, type ChunkRef } from '../api/chunk-input.js';
import { checkChunkId, checkId } from '../api/ids.js';
import { keysOf, rejectUnknownKeys } from '../api/option-keys.js';
import { adminSnapshot } from '../store/kv/admin-snapshot.js';
import { openError, storageError } from '../store/kv/level-errors.js';
import { refString } from '../store/kv/keys.js';
import { resolveStoreOptions, type AnyLevel, type ResolvedStoreOptions, type AkashicStoreOptions } from '../api/store-options.js';
import { sweepExpired, sweepHistory } from '../store/ops/expiry-sweep.js';
import type { SweepReport, PurgeReport, RelocationResult, StoreStats, VerifyReport } from '../api/reports.js';
import { purgeScope } from '../store/ops/purge.js';
import { historyPurgeHook } from '../store/write/history.js';
import type { ChunkVersion, RestoredVersion, MutationResult, ListedEntry, ReadResult, StoreStatus, ListedChunk, BlockListing } from '../api/results.js';
import { compileScope } from '../api/scope-filter.js';
import { chunkHistory, keptVersionMarks, keptVersions, listedAsOf, listedSuperseded, readAsOf, readKept } from '../store/read/versioned-read.js';
import { relocate } from '../store/ops/relocation.js';
import { findLogDamage } from '../store/leveldb/log-check.js';
import { isLocked, lockedError, lockHolders, makeWorkingCopy, refuseIfLocked, type WorkingCopy } from '../store/leveldb/read-only-copy.js';
import { checkTables } from '../store/leveldb/table-check.js';
import { computeStats } from '../store/ops/stats.js';
import { StoreCore } from '../store/store-core.js';
import { storedKeywordTerms } from '../model/keywords.js';
import type { Expiry, Mutation } from '../store/write/mutations.js';
import type { LocatedRef } from '../api/chunk-input.js';
import {
  activeTurnLog,
  backgroundGcPasses,
  coldReopen,
  modelUsageLedger,
  readOnlyScans,
  trustedCalls,
  type ActiveTurnLog,
  type CandidateQuery,
  type ListQuery,
  type TrustedCalls,
  type BackgroundGcPasses,
  type ReadOnlyScans,
  type SnapshotView,
} from './internal-seams.js';
import { NextEvent } from '../util/next-event.js';
import { EventChannel } from '../util/typed-events.js';
import { collectModelUsage, noteReceipt, sumReceipts, withReceipts, type ModelCallReceipt } from '../util/model-usage.js';
import { ModelUsageRecorder } from './model-usage-recorder.js';
import { ulid } from '../util/ulid-module.js';
import type { StoreEvents } from '../api/store-events.js';
import type { PutInput, WriteOp, ListOptions } from '../api/requests.js';
import { isRedisUrl } from '../backend/redis/redis-url.js';
import { openRedisLevel } from '../backend/open-backend.js';

/**
 * Akashic's storage engine: chunk records addressed by (user, session, ULID), placed by the engine in
 * zstd-compressed blocks over LevelDB column families, relocated out of place and collected by GC passes.
 *
 * @example
 *   const store = await AkashicStore.open({ path: './memory' });
 *   const { chunkId } = await store.put('alice', { sessionId: 's1', text: 'likes green tea', keywords: ['tea'] });
 *   const { chunks, blocksTouched } = await store.getMany('alice', [{ sessionId: 's1', chunkId }]);
 *   await store.close();
 */
export class AkashicStore {
  #status: StoreStatus = 'opening';
  readonly #core: StoreCore;
  readonly #location: string | null;
  readonly #affinity: AffinityModel;
  readonly #pool: GcPool;
  #timer: NodeJS.Timeout | null = null;
  #gcRunning: Promise<GcReport> | null = null;
  #inflight = new Set<Promise<unknown>>();
  /** The private copy a read-only store on a path reads (the source directory is never opened by LevelDB). */
  #workingCopy: WorkingCopy | null = null;
  readonly #events = new EventChannel<StoreEvents>();
  /**
   * Model usage: GC grouping here, and what AkashicMemory notes through `modelUsageLedger`; persisted per user with
   * the accounting, and kept since open in memory.
   */
  readonly #usage = new ModelUsageRecorder({ noteModelUsage: (userId, rows) => this.#core.noteModelUsage(userId, rows) });

  private constructor(core: StoreCore, location: string | null, affinity: AffinityModel) {
    this.#core = core;
    this.#location = location;
    this.#affinity = affinity;
    this.#pool = new GcPool(core.options.gcThreads);
  }

  /**
   * Opens or creates a store. With `path`, an embedded classic-level (LevelDB) database in that directory;
   * with `db`, any abstract-level database. A directory locked by another process fails with AKASHIC_LOCKED.
   */
  static async open(options: AkashicStoreOptions): Promise<AkashicStore> {
    const resolved = resolveStoreOptions(options);
    const given = [options.path, options.db, options.url].filter((x) => x !== undefined).length;
    if (given !== 1) throw invalidArgument('give exactly one of options.path, options.db and options.url');
    if (options.path !== undefined && (typeof options.path !== 'string' || options.path === '')) throw invalidArgument('option path must be a non-empty string');
    if (options.url !== undefined && (typeof options.url !== 'string' || !isRedisUrl(options.url))) {
      throw invalidArgument('option url must be a redis:// or redis+cluster:// URL');
    }
    const replicates = options.url !== undefined || (options.db?.supports as { replicatedWrites?: boolean } | undefined)?.replicatedWrites === true;
    if (resolved.durability === 'replicated' && !replicates) {
      throw invalidArgument("durability 'replicated' needs a replicated backend: open the store by a Redis url");
    }
    if (options.url !== undefined) {
      // The store then runs over abstract-level like any `db`; frames are keys (no directory), see docs/redis.md.
      const { url, ...rest } = options;
      return AkashicStore.open({ ...rest, db: await openRedisLevel(url, resolved.durability) });
    }
    if (options.db !== undefined && (options.db === null || typeof options.db !== 'object' || typeof (options.db as { open?: unknown }).open !== 'function')) {
      throw invalidArgument('option db must be an abstract-level database');
    }
    if (options.affinity !== undefined && (options.affinity === null || typeof (options.affinity as { group?: unknown }).group !== 'function')) {
      throw invalidArgument('option affinity must implement AffinityModel (a group method)');
    }
    const copy = options.path === undefined ? null : await prepareDirectory(options.path, resolved.readOnly);
    const db: AnyLevel =
      options.db ?? new (await classicLevel())(copy?.path ?? options.path!, { keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing: !resolved.readOnly });
    try {
      await db.open();
    } catch (err) {
      await copy?.remove();
      const e = openError(err, options.path);
      // LevelDB names neither the code nor who holds the lock: name the holder where the OS tells.
      if (e.code === 'AKASHIC_LOCKED' && options.path !== undefined) throw lockedError(options.path, await lockHolders(options.path), err);
      throw e;
    }
    // A classic-level handle given as `db` has a directory too: stats() reports its size, frame files live in it.
    const handleLocation = (db as unknown as { location?: unknown }).location;
    const location = options.path ?? (typeof handleLocation === 'string' ? handleLocation : null);
    let core: StoreCore;
    try {
      const explicit = new Set(['blockCapacity', 'blockMaxBytes', 'crossSessionBlocks'].filter((k) => (options as Record<string, unknown>)[k] !== undefined));
      // Each live entry is written with SELECT's terms of its keywords, so a recall decodes them instead of deriving them.
      core = await StoreCore.open(db, resolved, explicit, location === null ? null : join(location, FRAMES_DIR), storedKeywordTerms);
    } catch (err) {
      await db.close().catch(() => undefined);
      await copy?.remove();
      // A damaged LevelDB table under the engine's own records is corruption, not an I/O failure.
      throw storageError(err);
    }
    const store = new AkashicStore(core, location, options.affinity ?? new DefaultAffinityModel());
    store.#workingCopy = copy;
    store.#status = 'open';
    if (resolved.gcIntervalMs > 0 && !resolved.readOnly) store.#startBackgroundGc(resolved);
    return store;
  }

  get status(): StoreStatus {
    return this.#status;
  }

  /** The resolved options in force (layout options recorded in the database win unless given explicitly). */
  get options(): ResolvedStoreOptions {
    return this.#core.options;
  }

  /** MemAttention's active chunks (see ActiveTurnLog). @internal */
  get [activeTurnLog](): ActiveTurnLog {
    const core = this.#core;
    return {
      read: (userId, sessionId) => {
        this.#checkOpen();
        return this.#track(readActiveTurns(core, userId, sessionId));
      },
      sessions: (userId) => {
        this.#checkOpen();
        return this.#track(activeSessions(core, userId));
      },
      namespaces: () => {
        this.#checkOpen();
        return this.#track(activeNamespaces(core));
      },
      append: (userId, sessionId, turns) => {
        this.#checkWritable();
        return this.#track(appendActiveTurns(core, userId, sessionId, turns));
      },
      commitCompaction: (userId, mutations, consumed) => {
        this.#checkWritable();
        return this.#track(
          core.write(userId, mutations, async (txn) => {
            await checkStillActive(core, userId, consumed);
            txn.deleteActiveTurns(consumed.map((t) => t.key));
          }),
        );
      },
    };
  }

  /** Read-only scans for tools (see ReadOnlyScans). @internal */
  get [readOnlyScans](): ReadOnlyScans {
    this.#checkOpen();
    const core = this.#core;
    return {
      meta: core.meta,
      gcVictims: (threshold, maxBlocks) => {
        this.#checkOpen();
        const options = this.#gcPassOptions(threshold, maxBlocks);
        return this.#track(import('../gc/victim-selection.js').then(({ findVictims }) => findVictims(core, options)).then((r) => r.victims.length));
      },
      snapshot: (): SnapshotView => {
        this.#checkOpen();
        // Admin views (dump, inspect, block layout) see each user whole while others write (admin-snapshot.ts).
        const snapshot = adminSnapshot(core.db);
        let closed: Promise<void> | null = null;
        return {
          entries: (userId, sessionId) => wrapIoGenerator(core.entries(userId, sessionId, snapshot)),
          blockInfos: () => wrapIoGenerator(core.blockInfos(snapshot)),
          activeTurns: () => wrapIoGenerator(scanActiveTurns(core, snapshot)),
          records: (entries) => this.#track(core.liveRecords(entries, snapshot)),
          keptVersions: (e) => this.#track(keptVersions(core, { userId: e.userId, sessionId: e.sessionId, chunkId: e.chunkId }, snapshot)),
          keptVersionMarks: (e) => this.#track(keptVersionMarks(core, { userId: e.userId, sessionId: e.sessionId, chunkId: e.chunkId }, snapshot)),
          close: () => (closed ??= snapshot.close()),
        };
      },
    };
  }

  /** The public reads without their argument checks, for MemAttention (see TrustedCalls). @internal */
  get [trustedCalls](): TrustedCalls {
    return {
      list: (userId, q) => this.#list(userId, q),
      candidates: (userId, q) => this.#candidates(userId, q),
      getMany: (userId, refs, asOf) => this.#getMany(userId, refs, asOf),
      getManyBySlot: (userId, located) => this.#getManyBySlot(userId, located),
      keptVersions: (userId, refs) => this.#keptVersions(userId, refs),
      recordCoAccess: (userId, refs) => this.#recordCoAccess(userId, refs),
      coAccess: (userId, refs) => this.#coAccess(userId, refs),
      relocate: (userId, refs) => this.#relocate(userId, refs),
    };
  }

  /** The background GC loop's "pass finished" event (internal-seams.ts). @internal */
  get [backgroundGcPasses](): BackgroundGcPasses {
    return { next: () => this.#gcPassEvents.next() };
  }

  /** The store's model-usage recorder, which AkashicMemory adds its receipts to (`modelUsageLedger`). @internal */
  get [modelUsageLedger](): ModelUsageRecorder {
    return this.#usage;
  }

  /**
   * Listens to the store's events: `gc` (every GC pass), `expiry` (a sweep that deleted chunks), `relocation`,
   * `error` (a background GC pass that failed). Returns the function that removes the listener. Listeners run
   * synchronously after the operation; one that throws does not affect it.
   *
   * @example
   *   const stop = store.on('gc', (e) => console.log(e.report.chunksMoved, e.durationMs));
   */
  on<K extends keyof StoreEvents>(name: K, listener: (event: StoreEvents[K]) => void): () => void {
    if (!STORE_EVENT_NAMES.has(name)) throw invalidArgument(`unknown store event ${JSON.stringify(name)}`);
    return this.#events.on(name, listener);
  }

  /** Removes a listener added with `on`. */
  off<K extends keyof StoreEvents>(name: K, listener: (event: StoreEvents[K]) => void): void {
    this.#events.off(name, listener);
  }

  /** Background GC passes finishing (`backgroundGcPasses`); a failed pass has no other caller to throw to. */
  readonly #gcPassEvents = new NextEvent<GcReport>();

  /**
   * Drops what the process caches of the database (frame cache, LevelDB's memory maps) by reopening the key-value
   * store under the open engine, so the next read comes from the file system as after a restart. Benchmarks use it
   * to measure cold reads; the GC worker pool keeps running. REQUIRES: no call in flight on this store.
   * @internal
   */
  async [coldReopen](): Promise<void> {
    this.#checkOpen();
    await this.#track(this.#core.reopenForColdRead());
  }

  #checkOpen(): void {
    if (this.#status !== 'open') throw new AkashicError('AKASHIC_NOT_OPEN', `store is ${this.#status}`);
  }

  #checkWritable(): void {
    this.#checkOpen();
    if (this.#core.options.readOnly) throw new AkashicError('AKASHIC_INVALID_ARGUMENT', 'store was opened read-only');
    this.#core.writer.check();
  }

  /**
   * The storage write error (disk full, I/O error) after which this store refuses every write with
   * AKASHIC_READ_ONLY, or null while it accepts writes. Reads keep working; close and reopen to recover.
   */
  get writeError(): AkashicError | null {
    return this.#core.writer.failure;
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inflight.add(p);
    const done = (): void => {
      this.#inflight.delete(p);
    };
    p.then(done, done);
    return p.catch((err: unknown) => {
      throw storageError(err);
    });
  }

  /** Creates one chunk; returns its id and version. */
  async put(userId: string, input: PutInput): Promise<MutationResult> {
    if (input === null || typeof input !== 'object') throw invalidArgument('input must be an object');
    rejectUnknownKeys(input, PUT_INPUT_KEYS, 'input');
    const [r] = await this.#write(userId, [{ op: 'put', ...input }], () => 'input');
    return r!;
  }

  /**
   * Applies puts, updates and deletes of one user in one atomic batch: all land or none does.
   * Updates and deletes may carry `expectVersion` (compare-and-swap; AKASHIC_CONFLICT when it lost).
   */
  async write(userId: string, ops: readonly WriteOp[]): Promise<MutationResult[]> {
    return this.#write(userId, ops, (i) => `ops[${i}]`);
  }

  /** `write`, with each op named in errors as the caller wrote it (`ops[2]`, or `input` for a put). */
  async #write(userId: string, ops: readonly WriteOp[], nameOf: (i: number) => string): Promise<MutationResult[]> {
    this.#checkWritable();
    checkId(userId, 'userId');
    if (!Array.isArray(ops) || ops.length === 0) throw invalidArgument('ops must be a non-empty array');
    // Array.from, not map: map skips the holes of a sparse array from a plain-JS caller and keeps them.
    const mutations = Array.from(ops, (o, i) => toMutation(o, nameOf(i)));
    return this.#track(this.#core.write(userId, mutations));
  }

  /** Restores exact records (dump/load). Idempotent: a record whose version is already stored is skipped. */
  async restore(userId: string, records: readonly ChunkRecord[]): Promise<MutationResult[]> {
    this.#checkWritable();
    checkId(userId, 'userId');
    if (!Array.isArray(records)) throw invalidArgument('records must be an array');
    const mutations: Mutation[] = Array.from(records, (r, i) => ({ op: 'restore', record: checkRestored(userId, r, `records[${i}]`) }));
    return this.#track(this.#core.write(userId, mutations));
  }

  /**
   * Restores superseded versions exactly (dump/load), as `history()` returns them (`validUntil` set): each is kept
   * with its times, cause and successor, unless history already keeps that version (then skipped: idempotent). Of
   * one chunk's versions only the newest `history.versions` are kept; with history off nothing is. A chunk without
   * a directory entry whose newest restored version ended with `cause: 'delete'` gets its tombstone back, as the
   * delete left it. One atomic batch; one result per chunk (its newest version; `skipped` when nothing changed).
   * Errors: AKASHIC_INVALID_ARGUMENT (bad record or fields, a version given twice; nothing changes).
   */
  async restoreHistory(userId: string, versions: readonly RestoredVersion[]): Promise<MutationResult[]> {
    this.#checkWritable();
    checkId(userId, 'userId');
    if (!Array.isArray(versions)) throw invalidArgument('versions must be an array');
    if (versions.length > 10_000) throw invalidArgument(`versions has ${versions.length} items; the limit is 10000`);
    const byChunk = new Map<string, RestoredVersion[]>();
    Array.from(versions as unknown[], (v, i) => {
      const what = `versions[${i}]`;
      if (v === null || typeof v !== 'object') throw invalidArgument(`${what} must be { record, validFrom, validUntil, cause, supersededBy }`);
      const o = v as Record<string, unknown>;
      const record = checkRestored(userId, o['record'] as ChunkRecord, `${what}.record`);
      const validFrom = checkTime(o['validFrom'], `${what}.validFrom`);
      const validUntil = checkTime(o['validUntil'], `${what}.validUntil`);
      if (o['cause'] !== 'update' && o['cause'] !== 'delete') throw invalidArgument(`${what}.cause must be 'update' or 'delete'`);
      const by = o['supersededBy'] === null || o['supersededBy'] === undefined ? null : checkRef(o['supersededBy'], `${what}.supersededBy`);
      const reason = o['reason'];
      if (reason !== undefined && (typeof reason !== 'string' || !reason.isWellFormed())) throw invalidArgument(`${what}.reason must be a well-formed string`);
      const k = refString(record.sessionId, record.chunkId);
      const list = byChunk.get(k) ?? [];
      if (list.some((x) => x.record.version === record.version)) throw invalidArgument(`${what}: version ${record.version} of ${k} is given twice`);
      list.push({ record, validFrom, validUntil, cause: o['cause'], supersededBy: by, ...(reason === undefined ? {} : { reason }) });
      byChunk.set(k, list);
    });
    if (byChunk.size === 0) return [];
    const mutations: Mutation[] = [...byChunk.values()].map((list) => {
      list.sort((a, b) => a.record.version - b.record.version);
      return { op: 'restoreHistory', sessionId: list[0]!.record.sessionId, chunkId: list[0]!.record.chunkId, versions: list };
    });
    return this.#track(this.#core.write(userId, mutations));
  }

  /**
   * One chunk, or null when it does not exist or was deleted. With `asOf`, the version that was current at that
   * time (null when the chunk did not exist then, was deleted then, or that version is no longer kept).
   */
  async get(userId: string, sessionId: string, chunkId: string, opts: { asOf?: number } = {}): Promise<ChunkRecord | null> {
    checkOptions(opts, READ_KEYS, 'get options');
    const r = await this.getMany(userId, [{ sessionId, chunkId }], opts);
    return r.chunks[0] ?? null;
  }

  /**
   * Materializes chunks from one snapshot, touching each of their blocks once (one read of the frames not in cache;
   * the frames of all blocks decompressed together, one native zstd call per megabyte of content). `blocksTouched`
   * counts distinct blocks. With `asOf`, each chunk as it was at that time (see `get`); versions read from history
   * cost one range read and one decompression each.
   */
  async getMany(userId: string, refs: readonly ChunkRef[], opts: { asOf?: number } = {}): Promise<ReadResult> {
    this.#checkOpen();
    checkId(userId, 'userId');
    checkOptions(opts, READ_KEYS, 'getMany options');
    const checked = checkRefs(refs, 'refs');
    return this.#getMany(userId, checked, opts.asOf === undefined ? null : checkTime(opts.asOf, 'asOf'));
  }

  #getMany(userId: string, refs: readonly ChunkRef[], asOf: number | null): Promise<ReadResult> {
    this.#checkOpen();
    if (asOf !== null) return this.#track(readAsOf(this.#core, userId, refs, asOf));
    return this.#track(this.#core.read(userId, refs));
  }

  /**
   * Where each chunk's current version is stored (null: absent, deleted or expired): one directory read. A
   * `LocatedRef` is a hint for `getManyBySlot`; it stays usable after the chunk moves (the read then goes through
   * the directory), so a caller may keep it.
   */
  async locate(userId: string, refs: readonly ChunkRef[]): Promise<(LocatedRef | null)[]> {
    this.#checkOpen();
    checkId(userId, 'userId');
    const checked = checkRefs(refs, 'refs');
    return this.#track(this.#core.locate(userId, checked));
  }

  /**
   * Fetch by slot: `getMany` for chunks whose location the caller already holds (from `locate`, or the directory
   * entries of `candidates`), without reading the directory first: one read of the blocks the hints name, one
   * native zstd call per block for its frames not in cache. A hint is never trusted: where the slot no longer holds that chunk at that
   * version (GC released the block, the slot holds another record) the chunk is read through the directory, in the
   * same snapshot. A chunk deleted, updated or moved after its hint was taken, while its old slot still exists,
   * reads as the hint's version (as of when the hint was taken); an expired hint reads as null.
   */
  async getManyBySlot(userId: string, located: readonly LocatedRef[]): Promise<ReadResult> {
    this.#checkOpen();
    checkId(userId, 'userId');
    return this.#getManyBySlot(userId, checkLocatedRefs(located, 'located'));
  }

  #getManyBySlot(userId: string, located: readonly LocatedRef[]): Promise<ReadResult> {
    this.#checkOpen();
    return this.#track(this.#core.readLocated(userId, located));
  }

  /**
   * Every readable version of a chunk, newest first: the current one (`validUntil` null), then the superseded
   * versions history keeps, each with when and why it ended (`cause` 'update' or 'delete') and the chunk that
   * superseded it when reconciliation named one (`supersededBy`, a full ref). Empty for a chunk that never
   * existed, was purged or has expired. Cost: one directory read, one block read, one range read of the
   * chunk's history (at most `history.versions` entries) and one decompression per kept version.
   */
  async history(userId: string, sessionId: string, chunkId: string): Promise<ChunkVersion[]> {
    this.#checkOpen();
    checkId(userId, 'userId');
    const ref = checkRef({ sessionId, chunkId }, 'chunk');
    return this.#track(chunkHistory(this.#core, userId, ref.sessionId, ref.chunkId));
  }

  /** Kept versions by number (recall of superseded facts); null where a version is not kept. @internal */
  async keptVersions(userId: string, refs: readonly (ChunkRef & { version: number })[]): Promise<(ChunkRecord | null)[]> {
    this.#checkOpen();
    checkId(userId, 'userId');
    const checked = checkRefs(refs, 'refs').map((r, i) => ({ ...r, version: checkVersionNumber((refs[i] as { version?: unknown }).version, `refs[${i}].version`) }));
    return this.#keptVersions(userId, checked);
  }

  #keptVersions(userId: string, refs: readonly (ChunkRef & { readonly version: number })[]): Promise<(ChunkRecord | null)[]> {
    this.#checkOpen();
    return this.#track(readKept(this.#core, userId, refs));
  }

  /**
   * Directory entries (metadata, no bodies) of a user or one session, in time order. Expired chunks are left out
   * (`includeExpired` shows them until the sweep turns them into tombstones); tombstones only with `includeDeleted`.
   * `filter` keeps live chunks whose attributes and creation time match (see ChunkFilter); tombstones never match.
   * `agentId` / `runId` keep chunks of those scopes (one id, or several: a shared scope). `asOf` lists the chunks as
   * they were at that time (each as its version current then, from history; tombstones are never listed then).
   * `includeSuperseded` also yields every kept superseded version after its chunk, marked `superseded`.
   * Cost: one scan of the scope's directory; attributes come from the entries (no body reads), except for entries
   * written before directory entries carried attributes, whose records are read one by one; `asOf` reads the
   * history of each chunk changed since then, `includeSuperseded` the history of every chunk listed.
   */
  async *list(userId: string, opts: ListOptions = {}): AsyncGenerator<ListedChunk> {
    this.#checkOpen();
    checkId(userId, 'userId');
    checkOptions(opts, LIST_KEYS, 'list options');
    const q: ListQuery = {
      sessionId: opts.sessionId === undefined ? null : checkId(opts.sessionId, 'sessionId'),
      filter: opts.filter === undefined ? null : compileFilter(opts.filter, 'filter'),
      scope: compileScope(opts, 'options'),
      asOf: opts.asOf === undefined ? null : checkTime(opts.asOf, 'asOf'),
      includeDeleted: opts.includeDeleted === true,
      includeExpired: opts.includeExpired === true,
      includeSuperseded: opts.includeSuperseded === true,
    };
    // SELECT's stored terms are the engine's derivation of the keywords, not part of the listed metadata.
    for await (const e of this.#list(userId, q)) {
      if (e.entry.keywordTerms === undefined) yield e;
      else {
        const { keywordTerms: _, ...entry } = e.entry;
        yield { ...e, entry };
      }
    }
  }

  async *#list(userId: string, q: ListQuery): AsyncGenerator<ListedChunk> {
    this.#checkOpen();
    const { filter, scope, asOf } = q;
    const now = this.#core.options.now();
    const matches = async (e: ListedEntry): Promise<boolean> => {
      if (scope !== null && !scope(e.entry)) return false;
      if (filter === null) return true;
      if (e.entry.state !== 'live') return false;
      let attrs = e.entry.attributes;
      if (attrs === undefined && filter.needsAttributes) {
        const r = await this.#track(this.#core.read(userId, [{ sessionId: e.sessionId, chunkId: e.chunkId }]));
        attrs = r.chunks[0]?.attributes;
        if (attrs === undefined) return false;
      }
      return filter.matches(e.entry, attrs);
    };
    for await (const found of wrapIoGenerator(this.#core.entries(userId, q.sessionId))) {
      const expired = found.entry.state === 'live' && isExpired(found.entry, now);
      let e: ListedEntry | null = found;
      if (asOf !== null) e = expired ? null : await this.#track(listedAsOf(this.#core, found, asOf));
      else if (!(found.entry.state === 'live' ? q.includeExpired || !expired : q.includeDeleted)) e = null;
      if (e !== null && (await matches(e))) yield e;
      if (q.includeSuperseded && !expired) {
        for (const old of await this.#track(listedSuperseded(this.#core, found))) {
          if (asOf !== null && old.superseded.at > asOf) continue;
          if (await matches(old)) yield old;
        }
      }
    }
  }

  /**
   * A bounded candidate set for recall or reconciliation, gathered through the candidate index: the newest chunks
   * of the scope plus older ones sharing query keywords, with their directory entries and the keyword statistics
   * BM25 needs. Reads O(window + prefilter + a fixed postings budget) keys whatever the history length.
   * Resolves null when the database has no candidate index (a format-1 database opened read-only): the caller then
   * scans `list()`.
   * @internal
   */
  async candidates(userId: string, q: CandidateQuery): Promise<CandidateRead | null> {
    this.#checkOpen();
    checkId(userId, 'userId');
    return this.#candidates(userId, q);
  }

  async #candidates(userId: string, q: CandidateQuery): Promise<CandidateRead | null> {
    this.#checkOpen();
    if (!this.#core.indexReady) return null;
    const r = await this.#track(this.#core.candidates({ userId, ...q }));
    // Expired chunks stay indexed until the sweep; they are never candidates.
    const now = this.#core.options.now();
    return r.entries.some((e) => isExpired(e.entry, now)) ? { ...r, entries: r.entries.filter((e) => !isExpired(e.entry, now)) } : r;
  }

  async users(): Promise<string[]> {
    this.#checkOpen();
    return this.#track(this.#core.users());
  }

  async sessions(userId: string): Promise<string[]> {
    this.#checkOpen();
    checkId(userId, 'userId');
    return this.#track(this.#core.sessions(userId));
  }

  /**
   * Deletes chunks whose expiry has passed (at most `max`, default 10 000, per call), leaving tombstones as a
   * delete does. Reads never return an expired chunk even before this runs; the sweep reclaims the space. Runs in
   * the background with GC (`gc.intervalMs`) and at the start of every `gc()`.
   * Cost: one range read of the expiry index up to now, one directory read per expired chunk.
   */
  async sweepExpired(opts: { max?: number } = {}): Promise<SweepReport> {
    this.#checkWritable();
    checkOptions(opts, SWEEP_KEYS, 'sweepExpired options');
    const max = opts.max ?? 10_000;
    if (!Number.isInteger(max) || max < 1) throw invalidArgument('max must be a positive integer');
    return this.#track(this.#sweep(max));
  }

  /** Out-of-place relocation of co-retrieved chunks into fresh blocks (Algorithm 2, lines 3–10). */
  async relocate(userId: string, refs: readonly ChunkRef[]): Promise<RelocationResult> {
    this.#checkWritable();
    checkId(userId, 'userId');
    return this.#relocate(userId, checkRefs(refs, 'refs', 1024));
  }

  async #relocate(userId: string, refs: readonly ChunkRef[]): Promise<RelocationResult> {
    this.#checkWritable();
    if (!this.#events.listening('relocation')) return this.#track(relocate(this.#core, userId, refs));
    const startedAt = Date.now();
    const t0 = performance.now();
    const r = await this.#track(relocate(this.#core, userId, refs));
    this.#events.emit('relocation', { id: ulid(), startedAt, durationMs: performance.now() - t0, user: userId, chunks: refs.length, moved: r.moved });
    return r;
  }

  /** Records that these chunks were materialized together by one request. */
  async recordCoAccess(userId: string, refs: readonly ChunkRef[]): Promise<void> {
    this.#checkWritable();
    checkId(userId, 'userId');
    return this.#recordCoAccess(userId, checkRefs(refs, 'refs', 64));
  }

  #recordCoAccess(userId: string, refs: readonly ChunkRef[]): Promise<void> {
    this.#checkWritable();
    return this.#track(this.#core.recordCoAccess(userId, refs));
  }

  /**
   * Co-access statistics among `refs` (at most LIMITS.coAccessRefs of them; all of the user's when omitted); ids
   * are `session\0chunk`.
   */
  async coAccess(userId: string, refs?: readonly ChunkRef[]): Promise<CoAccessStats> {
    this.#checkOpen();
    checkId(userId, 'userId');
    return this.#coAccess(userId, refs === undefined ? undefined : checkRefs(refs, 'refs', LIMITS.coAccessRefs));
  }

  #coAccess(userId: string, refs: readonly ChunkRef[] | undefined): Promise<CoAccessStats> {
    this.#checkOpen();
    return this.#track(this.#core.coAccess(userId, refs?.map((r) => refString(r.sessionId, r.chunkId))));
  }

  /**
   * Runs one GC pass now: sealed blocks with φ ≥ threshold (default: the store's θ), best cost-benefit first,
   * at most `maxBlocks`. Concurrent calls share the pass in progress.
   */
  async gc(opts: { threshold?: number; maxBlocks?: number; userId?: string } = {}): Promise<GcReport> {
    return this.#gc(opts, false);
  }

  async #gc(opts: { threshold?: number; maxBlocks?: number; userId?: string }, background: boolean): Promise<GcReport> {
    this.#checkWritable();
    checkOptions(opts, GC_KEYS, 'gc options');
    const o = this.#core.options;
    const threshold = opts.threshold ?? o.gcThreshold;
    if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1)) throw invalidArgument('threshold must be in (0, 1]');
    const maxBlocks = opts.maxBlocks ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(maxBlocks) || maxBlocks < 1) throw invalidArgument('maxBlocks must be a positive integer');
    const passOpts = this.#gcPassOptions(threshold, maxBlocks, opts.userId === undefined ? undefined : checkId(opts.userId, 'userId'));
    if (this.#gcRunning !== null) return this.#gcRunning.then(() => this.#gc(opts, background));
    if (this.#exclusiveRun !== null) return this.#exclusiveRun.then(() => this.#gc(opts, background), () => this.#gc(opts, background));
    const run = this.#track(this.#gcPass(passOpts, background));
    this.#gcRunning = run;
    const clear = (): void => {
      this.#gcRunning = null;
    };
    run.then(clear, clear);
    return run;
  }

  /** An expiry sweep, reported as an `expiry` event when it deleted chunks. */
  async #sweep(max: number): Promise<SweepReport> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const r = await sweepExpired(this.#core, max);
    if ((r.expired > 0 || r.stale > 0) && this.#events.listening('expiry')) {
      this.#events.emit('expiry', { id: ulid(), startedAt, durationMs: performance.now() - t0, ...r });
    }
    return r;
  }

  /**
   * One GC pass after the expiry and history sweeps. The affinity model's calls are costed (receipts in the `gc`
   * event and the store's model usage).
   */
  async #gcPass(passOpts: GcPassOptions, background: boolean): Promise<GcReport> {
    const startedAt = Date.now();
    const t0 = performance.now();
    await this.#sweep(10_000);
    await sweepHistory(this.#core, 10_000);
    // GC's modules load with the first pass, not with the package: a process that never collects never loads them.
    const { runGcPass } = await import('../gc/gc-pass.js');
    // Each grouping is charged to the user whose chunks it grouped, before that user's GC commit.
    const r = await withReceipts(() => runGcPass(this.#core, this.#pool, (userId) => this.#costedAffinity(userId), passOpts));
    if (r.failed) throw r.error;
    const report = r.value!;
    if (this.#events.listening('gc')) {
      this.#events.emit('gc', {
        id: ulid(),
        startedAt,
        durationMs: performance.now() - t0,
        user: passOpts.userId ?? null,
        background,
        report,
        blocksTouched: report.victims + report.blocksWritten,
        modelCalls: r.receipts,
        usage: sumReceipts(r.receipts),
      });
    }
    return report;
  }

  /** The affinity model for a user's chunks, each `group` call costed like a MemAttention model call. */
  #costedAffinity(userId: string): AffinityModel {
    return {
      group: async (chunks, coAccess) => {
        const model = this.#affinity;
        const startedAt = Date.now();
        const t0 = performance.now();
        const local = (model as { local?: unknown }).local === true;
        const r = await collectModelUsage(() => model.group(chunks, coAccess));
        const u = r.usage;
        const known = u !== null && u.tokensReported;
        const receipt: ModelCallReceipt = {
          call: 'group',
          model: u?.model ?? modelName(model),
          promptTokens: known ? u.promptTokens : local ? 0 : estimateTokens(chunks),
          completionTokens: known ? u.completionTokens : local || r.failed ? 0 : estimateTokens(r.value),
          usageSource: known ? 'server' : local ? 'local' : 'estimated',
          startedAt,
          latencyMs: performance.now() - t0,
          retries: u?.retries ?? 0,
          ok: !r.failed,
        };
        noteReceipt(receipt);
        this.#usage.record('gc', userId, receipt);
        if (r.failed) throw r.error;
        return r.value!;
      },
    };
  }

  /** What a GC pass (and the victim count of `readOnlyScans.gcVictims`) decides with: θ and the rate limit (the merge rule is the store's). */
  #gcPassOptions(threshold: number, maxBlocks: number, userId?: string): GcPassOptions {
    return userId === undefined ? { threshold, maxBlocks } : { threshold, maxBlocks, userId };
  }

  #startBackgroundGc(o: ResolvedStoreOptions): void {
    this.#timer = setInterval(() => {
      if (this.#status !== 'open' || this.#gcRunning !== null || this.#exclusiveRun !== null) return;
      const startedAt = Date.now();
      this.#gc({ maxBlocks: o.gcMaxBlocksPerPass }, true).then(
        (report) => this.#gcPassEvents.emit(report),
        (err: unknown) => {
          if (this.#events.listening('error')) {
            const error = err instanceof AkashicError ? err : new AkashicError('AKASHIC_IO', String(err), { cause: err });
            this.#events.emit('error', { id: ulid(), startedAt, durationMs: Date.now() - startedAt, operation: 'gc', error });
          }
          this.#gcPassEvents.fail(err);
        },
      );
    }, o.gcIntervalMs);
    this.#timer.unref();
  }

  /**
   * Provable erasure of a user, or of one session of a user: every record and version, directory entry and
   * tombstone, co-access count, active turn and open-block ref of the scope is deleted in one atomic batch; blocks
   * holding its records are released (a shared block is rewritten without them); then LevelDB compacts the touched
   * key ranges, so no file of the database directory keeps the erased bytes (classic-level; `compacted` says so).
   * A GC pass in progress finishes first, and none starts until the purge is done. Purging an empty scope is a
   * no-op that still reports.
   *
   * Requires: no open iterator or snapshot of the caller's from before the purge (LevelDB keeps what it can see).
   * Cost: one scan of the scope's directory, co-access and active ranges, one scan of all block infos, a decode
   * of each shared block of the user (session purge), then compaction of the touched ranges — O(user's data).
   *
   * @throws AKASHIC_INVALID_ARGUMENT for a bad scope (nothing changes), AKASHIC_NOT_OPEN, AKASHIC_IO.
   * @example
   *   const report = await store.purge({ user: 'alice' });
   *   const oneSession = await store.purge({ user: 'alice', session: 's1' });
   */
  async purge(scope: { user: string; session?: string }): Promise<PurgeReport> {
    this.#checkWritable();
    if (scope === null || typeof scope !== 'object') throw invalidArgument('scope must be { user, session? }');
    rejectUnknownKeys(scope, PURGE_KEYS, 'scope');
    const userId = checkId(scope.user, 'scope.user');
    const sessionId = scope.session === undefined ? null : checkId(scope.session, 'scope.session');
    return this.#exclusive(() => purgeScope(this.#core, { userId, sessionId }, [candidateIndexPurgeHook, historyPurgeHook]));
  }

  #exclusiveRun: Promise<unknown> | null = null;

  /** Runs `fn` with no GC pass in progress or starting (GC writes blocks built from state read earlier). */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.#exclusiveRun;
    const run = (async (): Promise<T> => {
      if (prev !== null) await prev.catch(() => undefined);
      while (this.#gcRunning !== null) await this.#gcRunning.catch(() => undefined);
      return fn();
    })();
    const tracked = this.#track(run);
    this.#exclusiveRun = tracked;
    const clear = (): void => {
      if (this.#exclusiveRun === tracked) this.#exclusiveRun = null;
    };
    tracked.then(clear, clear);
    return tracked;
  }

  /** Engine figures (see StoreStats). */
  async stats(): Promise<StoreStats> {
    this.#checkOpen();
    return this.#track(computeStats(this.#core, this.#location));
  }

  /** Checks every invariant; see VerifyReport. Never throws for damage: it reports it. */
  async verify(progress?: (blocksDone: number) => void): Promise<VerifyReport> {
    this.#checkOpen();
    if (progress !== undefined && typeof progress !== 'function') throw invalidArgument('progress must be a function');
    // The checker's modules load with the first verify, not with the package.
    return this.#track(import('../store/ops/verify.js').then(({ verifyStore }) => verifyStore(this.#core, progress)));
  }

  /** Block infos (optionally one user's) with φ, in block id order. */
  async *blocks(opts: { userId?: string; includeReleased?: boolean } = {}): AsyncGenerator<BlockListing> {
    this.#checkOpen();
    checkOptions(opts, BLOCKS_KEYS, 'blocks options');
    const user = opts.userId === undefined ? null : checkId(opts.userId, 'userId');
    for await (const info of wrapIoGenerator(this.#core.blockInfos())) {
      if (user !== null && info.userId !== user) continue;
      if (info.state === 'released' && opts.includeReleased !== true) continue;
      yield { ...info, phi: invalidRatio(info) };
    }
  }

  /** Waits for in-flight work, stops background GC and its workers, and closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.#status === 'closed' || this.#status === 'closing') return;
    this.#status = 'closing';
    if (this.#timer !== null) clearInterval(this.#timer);
    await Promise.allSettled([...this.#inflight]);
    await this.#core.lock.drain();
    await this.#core.flushCoAccess().catch(() => undefined);
    await this.#core.flushCounters().catch(() => undefined);
    await this.#pool.close();
    await this.#core.db.close();
    await this.#core.closeFrames();
    await this.#workingCopy?.remove();
    this.#status = 'closed';
  }
}

function toMutation(o: WriteOp, what: string): Mutation {
  if (o === null || typeof o !== 'object') throw invalidArgument(`${what} must be an object`);
  const keys = typeof o.op === 'string' && Object.hasOwn(OP_KEYS, o.op) ? OP_KEYS[o.op as keyof typeof OP_KEYS] : undefined;
  if (keys !== undefined) rejectUnknownKeys(o, keys, what);
  const sessionId = checkId(o.sessionId, `${what}.sessionId`);
  switch (o.op) {
    case 'put': {
      const m: { op: 'put'; sessionId: string; content: ReturnType<typeof checkContent>; chunkId?: string; createdAt?: number; expiry?: Expiry } = {
        op: 'put',
        sessionId,
        content: checkContent(o, what),
      };
      if (o.chunkId !== undefined) m.chunkId = checkChunkId(o.chunkId, `${what}.chunkId`);
      if (o.createdAt !== undefined) {
        if (typeof o.createdAt !== 'number' || !Number.isFinite(o.createdAt) || o.createdAt < 0) throw invalidArgument(`${what}.createdAt must be a non-negative number of ms`);
        m.createdAt = o.createdAt;
      }
      if ((o as { expiresAt?: unknown }).expiresAt === null) throw invalidArgument(`${what}.expiresAt must be an integer number of ms (null only clears it in an update)`);
      const expiry = checkExpiry(o, what);
      if (expiry !== undefined) m.expiry = expiry;
      return m;
    }
    case 'update': {
      const chunkId = checkChunkId(o.chunkId, `${what}.chunkId`);
      const expiry = checkExpiry(o, what);
      const hasContent = CONTENT_FIELDS.some((f) => (o as unknown as Record<string, unknown>)[f] !== undefined);
      const partial = hasContent || expiry === undefined ? checkPartial(o, what) : {};
      const by = o.supersededBy === undefined ? {} : { supersededBy: checkSupersededBy(o.supersededBy, sessionId, `${what}.supersededBy`) };
      const base = { op: 'update' as const, sessionId, chunkId, content: partial, ...(expiry === undefined ? {} : { expiry }), ...by };
      return o.expectVersion === undefined ? base : { ...base, expectVersion: checkVersion(o.expectVersion, what) };
    }
    case 'delete': {
      const chunkId = checkChunkId(o.chunkId, `${what}.chunkId`);
      const m: { op: 'delete'; sessionId: string; chunkId: string; expectVersion?: number; supersededBy?: { sessionId: string; chunkId: string } } = {
        op: 'delete',
        sessionId,
        chunkId,
      };
      if (o.expectVersion !== undefined) m.expectVersion = checkVersion(o.expectVersion, what);
      if (o.supersededBy !== undefined) m.supersededBy = checkSupersededBy(o.supersededBy, sessionId, `${what}.supersededBy`);
      return m;
    }
    default:
      throw invalidArgument(`${what}.op must be 'put', 'update' or 'delete'`);
  }
}

/** Validates one exact record of `restore` / `restoreHistory` and returns it as the user's. */
function checkRestored(userId: string, r: ChunkRecord, what: string): ChunkRecord {
  checkRef(r, what);
  const c = checkContent(r, what);
  if (!Number.isInteger(r.version) || r.version < 1 || r.version > LIMITS.version) throw invalidArgument(`${what}.version must be an integer in [1, ${LIMITS.version}]`);
  if (!Number.isFinite(r.createdAt) || !Number.isFinite(r.updatedAt)) throw invalidArgument(`${what} needs finite createdAt and updatedAt`);
  const exp = (r as { expiresAt?: unknown }).expiresAt;
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp < 1)) throw invalidArgument(`${what}.expiresAt must be a positive integer of ms`);
  return { ...r, ...c, userId, supersedes: c.supersedes.map((x) => ({ userId, sessionId: x.sessionId, chunkId: x.chunkId })) };
}

/** A time argument: a finite number of ms since the epoch. */
function checkTime(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidArgument(`${what} must be a finite number of ms since the epoch`);
  return v;
}

/** An options argument from a plain-JS caller: an object (absent is fine; the default parameter fills it in). */
function checkOptions(opts: unknown, keys: ReadonlySet<string>, what: string): void {
  if (opts === null || typeof opts !== 'object') throw invalidArgument(`${what} must be an object`);
  rejectUnknownKeys(opts, keys, what);
}

const READ_KEYS = keysOf<{ asOf?: number }>()('asOf');
const LIST_KEYS = keysOf<ListOptions>()('sessionId', 'includeDeleted', 'includeExpired', 'filter', 'asOf', 'includeSuperseded', 'agentId', 'runId');
const SWEEP_KEYS = keysOf<{ max?: number }>()('max');
const GC_KEYS = keysOf<{ threshold?: number; maxBlocks?: number; userId?: string }>()('threshold', 'maxBlocks', 'userId');
const BLOCKS_KEYS = keysOf<{ userId?: string; includeReleased?: boolean }>()('userId', 'includeReleased');
const PURGE_KEYS = keysOf<{ user: string; session?: string }>()('user', 'session');
const PUT_INPUT_KEYS = keysOf<PutInput>()(
  'sessionId', 'chunkId', 'createdAt', 'ttlMs', 'expiresAt',
  'kind', 'text', 'tokenCount', 'keywords', 'attributes', 'payload', 'supersedes', 'provenance', 'embedding', 'agentId', 'runId',
);
type PutOp = Extract<WriteOp, { op: 'put' }>;
type UpdateOp = Extract<WriteOp, { op: 'update' }>;
type DeleteOp = Extract<WriteOp, { op: 'delete' }>;
const PUT_OP_KEYS = keysOf<PutOp>()(
  'op', 'sessionId', 'chunkId', 'createdAt', 'ttlMs', 'expiresAt',
  'kind', 'text', 'tokenCount', 'keywords', 'attributes', 'payload', 'supersedes', 'provenance', 'embedding', 'agentId', 'runId',
);
const UPDATE_OP_KEYS = keysOf<UpdateOp>()(
  'op', 'sessionId', 'chunkId', 'expectVersion', 'supersededBy', 'ttlMs', 'expiresAt',
  'kind', 'text', 'tokenCount', 'keywords', 'attributes', 'payload', 'supersedes', 'provenance', 'embedding', 'agentId', 'runId',
);
const DELETE_OP_KEYS = keysOf<DeleteOp>()('op', 'sessionId', 'chunkId', 'expectVersion', 'supersededBy');
const OP_KEYS: Readonly<Record<WriteOp['op'], ReadonlySet<string>>> = { put: PUT_OP_KEYS, update: UPDATE_OP_KEYS, delete: DELETE_OP_KEYS };


/** The expiry a put or update gives (`ttlMs` or `expiresAt`, never both); undefined when it gives none. */
function checkExpiry(o: object, what: string): Expiry | undefined {
  const src = o as { ttlMs?: unknown; expiresAt?: unknown };
  if (src.ttlMs !== undefined && src.expiresAt !== undefined) throw invalidArgument(`${what} gives both ttlMs and expiresAt`);
  if (src.ttlMs !== undefined) {
    if (typeof src.ttlMs !== 'number' || !Number.isSafeInteger(src.ttlMs) || src.ttlMs < 1) throw invalidArgument(`${what}.ttlMs must be a positive integer of ms`);
    return { ttlMs: src.ttlMs };
  }
  if (src.expiresAt === undefined) return undefined;
  if (src.expiresAt === null) return null;
  if (typeof src.expiresAt !== 'number' || !Number.isSafeInteger(src.expiresAt) || src.expiresAt < 1) throw invalidArgument(`${what}.expiresAt must be a positive integer of ms since the epoch`);
  return { at: src.expiresAt };
}

/** A superseding chunk: a `{ sessionId, chunkId }` ref, or a bare id of the chunk's own session. */
function checkSupersededBy(v: unknown, ownSession: string, what: string): { sessionId: string; chunkId: string } {
  if (typeof v === 'string') return { sessionId: ownSession, chunkId: checkChunkId(v, what) };
  return checkRef(v, what);
}

/** A chunk version a caller names: an integer in [1, 2^32 - 1]. */
function checkVersionNumber(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > LIMITS.version) throw invalidArgument(`${what} must be an integer in [1, ${LIMITS.version}]`);
  return v;
}

function checkVersion(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > LIMITS.version) {
    throw invalidArgument(`${what}.expectVersion must be an integer in [1, ${LIMITS.version}]`);
  }
  return v;
}

/** Validates only the fields an update gives; absent ones are kept from the current version. */
function checkPartial(o: Record<string, unknown> | object, what: string): Partial<ReturnType<typeof checkContent>> {
  const src = o as Record<string, unknown>;
  const given = CONTENT_FIELDS.filter((f) => src[f] !== undefined);
  if (given.length === 0) throw invalidArgument(`${what} changes nothing`);
  const full = checkContent({ text: '', ...src }, what);
  const out: Record<string, unknown> = {};
  for (const f of given) out[f] = full[f];
  // A vector describes a text: new text without a new vector drops the old one.
  if (src['text'] !== undefined && src['embedding'] === undefined) out['embedding'] = null;
  return out as Partial<ReturnType<typeof checkContent>>;
}

/**
 * Before LevelDB opens a directory: refuses a damaged write-ahead log (LevelDB would drop acknowledged writes
 * silently and delete the evidence) or a damaged table block (a damaged key reads as "missing" and aborts the
 * process at the next compaction), and for a read-only open returns the working copy to open instead, so the
 * source stays byte-identical. A directory another process holds is refused first (its files are in motion).
 */
async function prepareDirectory(path: string, readOnly: boolean): Promise<WorkingCopy | null> {
  if (readOnly) await refuseIfLocked(path);
  else if (await isLocked(path)) return null; // LevelDB refuses it (AKASHIC_LOCKED, with LevelDB's error as cause)
  const salvageHint = `Nothing was changed; copy what is readable with \`akashic salvage --from ${path} --to NEW_DIR\``;
  const damage = await findLogDamage(path);
  if (damage.length > 0) {
    const first = damage[0]!;
    throw new AkashicError(
      'AKASHIC_CORRUPTION',
      `write-ahead log ${first.file} is damaged at byte ${first.offset} (${first.reason}${damage.length > 1 ? `; ${damage.length - 1} more` : ''}): ` +
        `opening would silently drop acknowledged writes. ${salvageHint}`,
    );
  }
  const tables = await checkTables(path, { trustVerified: true });
  if (tables.damage.length > 0) {
    const first = tables.damage[0]!;
    throw new AkashicError(
      'AKASHIC_CORRUPTION',
      `table file ${first.file} is damaged at byte ${first.offset} (${first.reason}${tables.damage.length > 1 ? `; ${tables.damage.length - 1} more` : ''}). ${salvageHint}`,
    );
  }
  if (!readOnly) {
    await tables.record();
    return null;
  }
  const found = await stat(path).catch(() => null);
  if (found === null) throw new AkashicError('AKASHIC_NOT_FOUND', `cannot open database at ${path}: it does not exist (opened read-only, so none was created)`);
  return makeWorkingCopy(path);
}

/** A scan whose iterator failures (a damaged LevelDB table) surface as AkashicError like every other call's. */
async function* wrapIoGenerator<T>(scan: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* scan;
  } catch (err) {
    throw storageError(err);
  }
}

const STORE_EVENT_NAMES: ReadonlySet<string> = new Set(['gc', 'expiry', 'relocation', 'error']);

function modelName(m: unknown): string {
  const name = (m as { name?: unknown }).name;
  return typeof name === 'string' ? name : (m as object).constructor?.name ?? 'affinity';
}

/** ~4 characters a token: the cost estimate of a grouping call whose model reports no usage. */
function estimateTokens(v: unknown): number {
  try {
    return Math.ceil((JSON.stringify(v) ?? '').length / 4);
  } catch {
    return 0;
  }
}
