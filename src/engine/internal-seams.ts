/**
 * The narrow internal seams of AkashicStore for the layers built on it, in the way abstract-level keeps a few `_`
 * hooks under its public methods. Each seam is named for what its callers need and hands out nothing else: no
 * column family, lock or cache leaves the engine.
 *
 * - `activeTurnLog`: MemAttention's active chunks (append, read, and the compaction commit that consumes turns).
 * - `readOnlyScans`: the engine meta, consistent snapshot scans of the directory, block infos, records and active
 *   turns, and GC's victim count, for tools (dump, inspect, blocks, report, gc) and test oracles.
 * - `coldReopen`: cycles the LevelDB handle so benchmarks read cold.
 * - `backgroundGcPasses`: the event of a background GC pass finishing, so callers wait for it instead of polling.
 * - `trustedCalls`: the reads and co-access calls of the public API minus its argument checks, for MemAttention,
 *   whose ids, refs, filter and scope are checked once at its own edge (or come from the store itself).
 *
 * The symbols are not exported from the package barrel. Every seam checks the store's state as the public
 * methods do (AKASHIC_NOT_OPEN, read-only) and maps storage errors to AkashicError.
 * @internal
 */
import type { CoAccessStats } from '../api/affinity-model.js';
import type { CompiledFilter } from '../api/chunk-filter.js';
import type { ChunkRef, LocatedRef } from '../api/chunk-input.js';
import type { GcReport, RelocationResult } from '../api/reports.js';
import type { ListedChunk, ReadResult, RestoredVersion, MutationResult, ListedEntry } from '../api/results.js';
import type { ScopeTest } from '../api/scope-filter.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import type { CandidateQuery as ReaderQuery, CandidateRead } from '../store/index/candidate-reader.js';
import type { BlockInfo } from '../record/block-info.js';
import type { ActiveTurnValue, EngineMeta } from '../record/engine-records.js';
import type { NamespacedTurn, StoredTurn } from '../store/write/active-turns.js';
import type { Mutation } from '../store/write/mutations.js';

export type { NamespacedTurn, StoredTurn } from '../store/write/active-turns.js';
export type { Mutation } from '../store/write/mutations.js';
/** The mapping of storage failures to AkashicError that the store applies to its own calls, for the layers above. */
export { storageError } from '../store/kv/level-errors.js';
/** Whether a compaction commit failed because another process consumed its turns first (see ActiveTurnLog). */
export { isConsumedElsewhere } from '../store/write/active-turns.js';
export type { MutationResult } from '../api/results.js';
export type { ListedEntry } from '../api/results.js';

/** `store[activeTurnLog]`: the active-turn log of MemAttention. @internal */
export const activeTurnLog = Symbol('akashic.activeTurnLog');
/** `store[readOnlyScans]`: read-only scans for tools. @internal */
export const readOnlyScans = Symbol('akashic.readOnlyScans');
/** `store[coldReopen]()`: closes and reopens the LevelDB handle. @internal */
export const coldReopen = Symbol('akashic.coldReopen');
/** `store[backgroundGcPasses]`: the background GC loop's "pass finished" event. @internal */
export const backgroundGcPasses = Symbol('akashic.backgroundGcPasses');

/** `store[modelUsageLedger]`: the store's model-usage totals, which AkashicMemory adds its receipts to. @internal */
export const modelUsageLedger = Symbol('akashic.modelUsageLedger');

/** `store[trustedCalls]`: the public reads without their argument checks. @internal */
export const trustedCalls = Symbol('akashic.trustedCalls');

/** What `list` does once its options are checked: the filter and scope compiled, absent options resolved. */
export interface ListQuery {
  readonly sessionId: string | null;
  readonly filter: CompiledFilter | null;
  readonly scope: ScopeTest;
  readonly asOf: number | null;
  readonly includeDeleted: boolean;
  readonly includeExpired: boolean;
  readonly includeSuperseded: boolean;
}

/**
 * The bodies of AkashicStore's public reads and co-access calls, as abstract-level's `_get` sits under `get`: each
 * checks the store's state but trusts its arguments. REQUIRES: ids checked by `checkId`/`checkChunkId`, refs
 * within the public method's limits, versions and times valid (as the public method would have checked them), or
 * taken from what the store returned.
 */
export interface TrustedCalls {
  list(userId: string, q: ListQuery): AsyncGenerator<ListedChunk>;
  candidates(userId: string, q: CandidateQuery): Promise<CandidateRead | null>;
  getMany(userId: string, refs: readonly ChunkRef[], asOf: number | null): Promise<ReadResult>;
  getManyBySlot(userId: string, located: readonly LocatedRef[]): Promise<ReadResult>;
  keptVersions(userId: string, refs: readonly (ChunkRef & { readonly version: number })[]): Promise<(ChunkRecord | null)[]>;
  recordCoAccess(userId: string, refs: readonly ChunkRef[]): Promise<void>;
  coAccess(userId: string, refs?: readonly ChunkRef[]): Promise<CoAccessStats>;
  relocate(userId: string, refs: readonly ChunkRef[]): Promise<RelocationResult>;
}

/** What `candidates` gathers (see AkashicStore.candidates): the store's candidate query, the user given apart. */
export type CandidateQuery = Omit<ReaderQuery, 'userId'>;

/** The background GC loop (`gc.intervalMs` > 0) as events. */
export interface BackgroundGcPasses {
  /** Settles with the next background GC pass to finish after this call: its report, or its error. */
  next(): Promise<GcReport>;
}

/**
 * The active chunks of every (user, session) namespace. Callers serialize the work on one namespace (the engine
 * does not): a read, an append and a compaction of one namespace must not interleave.
 */
export interface ActiveTurnLog {
  /** The namespace's active turns, oldest first, in the committed state. */
  read(userId: string, sessionId: string): Promise<StoredTurn[]>;
  /** The sessions of the user that have active turns, in key order. */
  sessions(userId: string): Promise<string[]>;
  /** Every (user, session) with active turns, in key order. */
  namespaces(): Promise<{ userId: string; sessionId: string }[]>;
  /** Durably appends turns in one batch (all or none); returns them with the keys they are stored under. */
  append(userId: string, sessionId: string, turns: readonly ActiveTurnValue[]): Promise<StoredTurn[]>;
  /**
   * Applies a compaction: the chunk mutations (trusted: already validated) and the deletion of the turns it
   * consumed, in ONE batch under the write lock; any error changes nothing. When a consumed turn is no longer in the
   * active chunk (another process compacted or purged it first), nothing is applied and the AKASHIC_CONFLICT it
   * rejects with satisfies `isConsumedElsewhere`: read the active chunk again.
   */
  commitCompaction(userId: string, mutations: readonly Mutation[], consumed: readonly StoredTurn[]): Promise<MutationResult[]>;
}

/** One LevelDB snapshot of the store. Every scan sees the same state; close the view when done. */
export interface SnapshotView {
  /**
   * Directory entries (deleted ones included) in key order: every user's when `userId` is null, one user's, or
   * one session's (`sessionId` without `userId`: that session of every user).
   */
  entries(userId: string | null, sessionId: string | null): AsyncGenerator<ListedEntry>;
  /** Every block info, released ones included, in block id order. */
  blockInfos(): AsyncGenerator<BlockInfo>;
  /** Every namespace's active (not yet compacted) turns, in key order: namespace, then arrival. */
  activeTurns(): AsyncGenerator<NamespacedTurn>;
  /** The records of live entries from `entries`, in the same order, each checked against its entry. */
  records(entries: readonly ListedEntry[]): Promise<ChunkRecord[]>;
  /** The kept superseded versions of one chunk listed by `entries`, oldest first. */
  keptVersions(entry: ListedEntry): Promise<RestoredVersion[]>;
  /** How many versions `keptVersions` would give and the cause that ended the newest, without reading bodies. */
  keptVersionMarks(entry: ListedEntry): Promise<{ count: number; newestCause: RestoredVersion['cause'] | null }>;
  /** Releases the snapshot. Idempotent. */
  close(): Promise<void>;
}

/** What tools read below the public API, read-only. */
export interface ReadOnlyScans {
  /** The engine meta: creation time, engine version, the database's layout settings. */
  readonly meta: EngineMeta;
  /**
   * How many victims a GC pass with this θ and rate limit would take now: the decide half of `gc()` alone
   * (`findVictims`), which writes nothing. For a progress bar's total; a pass that runs later may take other blocks.
   */
  gcVictims(threshold: number, maxBlocks: number): Promise<number>;
  /** Opens a snapshot view; the caller closes it (a `try … finally`). */
  snapshot(): SnapshotView;
}
