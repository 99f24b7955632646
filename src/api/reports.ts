// What the store's maintenance operations (relocation, purge, expiry sweep, stats, verify) report.
import type { ModelUsageStats } from './model-usage.js';

export interface RelocationResult {
  /** Chunks rewritten into fresh blocks. */
  readonly moved: number;
  /** Distinct blocks the live chunks occupied before, and occupy after. */
  readonly blocksBefore: number;
  readonly blocksAfter: number;
  /** True when nothing was done because the set already sat in as few blocks as it could. */
  readonly skipped: boolean;
}

/** What a purge removed. Counts are of LevelDB entries deleted or blocks changed. */
export interface PurgeReport {
  readonly userId: string;
  readonly sessionId: string | null;
  /** Live chunks erased. */
  readonly chunks: number;
  /** Deletion tombstones erased. */
  readonly tombstones: number;
  /** Blocks released because they held records of the scope (their frames deleted). */
  readonly blocksReleased: number;
  /** Of those, blocks that also held live records of other sessions, which were rewritten into fresh blocks. */
  readonly blocksRewritten: number;
  /** Live records of other sessions moved out of rewritten blocks. */
  readonly recordsMoved: number;
  /** Block infos deleted outright (a user purge forgets every block the user ever had). */
  readonly blockInfosDeleted: number;
  readonly coAccessEntries: number;
  readonly activeTurns: number;
  readonly openBlockRefs: number;
  /** Extra entries deleted by other families that index chunks (`PurgeHook`s). */
  readonly indexEntries: number;
  /**
   * True when LevelDB compacted the touched key ranges afterwards, so no file of the database directory holds
   * the erased bytes any more (write-ahead log included). False on backends without `compactRange`.
   */
  readonly compacted: boolean;
  /** Key ranges compacted. */
  readonly rangesCompacted: number;
}

export interface SweepReport {
  /** Expired chunks deleted (each leaves a tombstone, as a delete does). */
  readonly expired: number;
  /** Expiry index entries that pointed at nothing current (removed). */
  readonly stale: number;
  /** True when more expired chunks remain than `max` allowed this pass. */
  readonly more: boolean;
}

/**
 * Engine figures. Field names are a stable, documented contract (docs/format.md, "Stats"); `akashic stats --json`
 * prints exactly this object.
 */
export interface StoreStats {
  readonly formatVersion: number;
  readonly engineVersion: string;
  readonly users: number;
  readonly sessions: number;
  /** Live chunks. */
  readonly chunks: number;
  /** Tombstoned (deleted or reconciled-away) chunks. */
  readonly deletedChunks: number;
  /** Chunks whose live version is not their first (updated at least once). */
  readonly updatedChunks: number;
  /** Blocks holding data (open + sealed). */
  readonly blocks: number;
  readonly blocksByState: { readonly open: number; readonly sealed: number; readonly released: number };
  /** Counts of non-released blocks by φ in ten buckets [0,0.1), ..., [0.9,1.0]. */
  readonly phiHistogram: readonly number[];
  readonly logicalBytesIngested: number;
  readonly engineBytesWritten: number;
  readonly liveBytes: number;
  readonly storedRawBytes: number;
  readonly storedBytes: number;
  /**
   * Size of the database's files on disk (classic-level: tables, write-ahead log, manifest; not LevelDB's
   * diagnostic LOG, which every open rewrites), or null (other backends).
   */
  readonly diskBytes: number | null;
  /** engineBytesWritten ÷ logicalBytesIngested (null before any write). */
  readonly writeAmplification: number | null;
  /**
   * (storedRawBytes + historyBytes) ÷ liveBytes, uncompressed (null with no live data): superseded versions kept as
   * history count as space beyond the live data.
   */
  readonly spaceAmplification: number | null;
  /** Superseded versions kept as history, and their encoded record bytes (uncompressed). */
  readonly historyVersions: number;
  readonly historyBytes: number;
  /** storedBytes ÷ liveBytes: the same, as stored (compressed). */
  readonly storedSpaceRatio: number | null;
  readonly relocations: number;
  readonly relocatedChunks: number;
  readonly gcRuns: number;
  readonly gcMovedChunks: number;
  readonly blocksCreated: number;
  readonly blocksReleased: number;
  readonly retrievals: number;
  /** Mean blocks touched per retrieval since the database was created (null before any). */
  readonly blocksPerRetrieval: number | null;
  readonly blockCapacity: number;
  /**
   * The candidate index's background posting merges: chunks whose postings are still pending, merges that failed
   * since open (each changed nothing; the pending chunks stay findable and the merge is retried at the user's next
   * write), and the last failure with its code.
   */
  readonly postingMerge: PostingMergeReport;
  /**
   * Writes this process staged again since open because another process changed the same user first (each retry
   * rereads the user; nothing of the losing attempt was applied). Always 0 when one process holds the store.
   */
  readonly conflictsRetried: number;
  /**
   * Model calls over the database's life: what AkashicMemory's compactions, recalls, relocations and embedder
   * calls and GC's grouping cost, in total, per kind (`embedding` holds every embedder call), per call and per
   * user (users without usage are absent). Persisted in each user's accounting with the user's next commit (a
   * compaction's with its own commit) or at close; usage this process noted but has not persisted yet is included.
   */
  readonly modelUsage: ModelUsageStats;
}

/** Stable problem kinds reported by verify(). */
export type ProblemKind =
  | 'engine-meta'
  | 'accounting'
  | 'allocator'
  | 'block-info'
  | 'block-frame'
  | 'block-counters'
  | 'block-mixes-users'
  | 'released-block-has-frames'
  | 'directory-entry'
  | 'dangling-directory-entry'
  | 'slot-mismatch'
  | 'open-block-ref'
  | 'candidate-index'
  | 'expiry-index'
  | 'history'
  | 'storage';

export interface Problem {
  readonly kind: ProblemKind;
  readonly message: string;
  readonly blockId?: number;
  readonly key?: string;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly problems: Problem[];
  readonly checked: { blocks: number; frames: number; chunks: number; records: number };
}

/** A background posting merge that failed. */
export interface PostingMergeError {
  /** The user whose pending chunks it was posting. */
  readonly userId: string;
  /** The error's stable code (`AKASHIC_IO` for an error that is not an AkashicError). */
  readonly code: string;
  readonly message: string;
  /** When it failed (ms since the epoch). */
  readonly at: number;
}

/** The state of the candidate index's background posting merges (`StoreStats.postingMerge`). */
export interface PostingMergeReport {
  /** Live chunks whose postings wait for a merge (readers find them through their pending keys). */
  readonly pendingChunks: number;
  /** Merges that failed since the store was opened; each changed nothing and is retried at the user's next commit. */
  readonly failures: number;
  /** The most recent failure, or null. */
  readonly lastError: PostingMergeError | null;
}

/** What one GC pass did. */
export interface GcReport {
  /** Blocks eligible as victims when the pass started (φ ≥ θ, or under-filled for a merge). */
  readonly eligible: number;
  /** Blocks chosen (cost-benefit order, capped by maxBlocks). */
  readonly victims: number;
  readonly blocksReleased: number;
  readonly blocksWritten: number;
  readonly chunksMoved: number;
  /** Chunks that changed while the pass worked on them (compare-and-swap lost): left where they are now. */
  readonly conflicts: number;
  /** Partitions whose affinity model failed; they were packed in temporal order instead. */
  readonly affinityFallbacks: number;
  /** Victims left where they are because a frame of theirs is damaged (verify() names it). */
  readonly damagedBlocks: number;
}
