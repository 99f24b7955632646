// Public entry point of `akashic`. Everything exported here is the supported API; the rest is @internal.
export { AkashicError, isAkashicError, type AkashicErrorCode } from './errors.js';
export {
  AkashicStore,
  type AkashicStoreOptions,
  type BlockListing,
  type PutInput,
  type StoreStatus,
  type WriteOp,
  type ListOptions,
  type ListedChunk,
} from './engine/akashic-store.js';
export type { GcOptions, StoreOptions, HistoryRetention, ScopeTtlRule } from './store/kv/options.js';
export type { ChunkRecord, ChunkKind, FullChunkRef } from './record/chunk-record.js';
export type { ChunkVersion, RestoredVersion } from './store/write/history.js';
export type { SupersededMark } from './store/read/versioned-read.js';
export type { ScopeSelector } from './store/scope-filter.js';
export type { SupersedesRef } from './store/chunk-input.js';
export type { RecalledChunk } from './memattention/recall.js';
export type { BlockInfo, BlockState, BlockOrigin } from './record/block-info.js';
export type { DirEntry, SlotRef } from './record/dir-entry.js';
export type { ChunkContent, ChunkRef } from './store/chunk-input.js';
export { LIMITS } from './store/chunk-input.js';
export { MAX_ID_BYTES } from './store/ids.js';
export type { MutationResult } from './store/write/mutations.js';
export type { ReadResult, ListedEntry, LocatedRef } from './store/read/read-path.js';
export type { RelocationResult } from './store/ops/relocation.js';
export type { PurgeReport } from './store/ops/purge.js';
export type { SweepReport } from './store/ops/expiry-sweep.js';
export type { ChunkFilter, AttributeCondition } from './store/chunk-filter.js';
export type { StoreStats } from './store/ops/stats.js';
export type { VerifyReport, Problem, ProblemKind } from './store/ops/verify.js';
export type { GcReport } from './gc/gc-pass.js';
export type { AffinityModel, AffinityChunk, CoAccessStats } from './gc/affinity-model.js';
export { DefaultAffinityModel } from './gc/default-affinity.js';
export { FORMAT_VERSION } from './record/envelope.js';
export * from './memattention/index.js';
export * from './model/index.js';
export * from './workload/index.js';
export { salvage, type SalvageOptions, type SalvageReport } from './engine/salvage.js';
