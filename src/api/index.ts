// The public contract of `akashic`: the types every call takes and returns, the limits input is checked against and
// the affinity model a caller may plug into GC. Every layer imports it; it imports only errors and record types.
export type { AffinityModel, AffinityChunk, CoAccessStats } from './affinity-model.js';
export type { ChunkFilter, AttributeCondition } from './chunk-filter.js';
export { LIMITS, type ChunkContent, type ChunkRef, type LocatedRef, type SupersedesRef } from './chunk-input.js';
export { MAX_ID_BYTES } from './ids.js';
export type { GcReport, PurgeReport, RelocationResult, StoreStats, SweepReport, VerifyReport, Problem, ProblemKind, PostingMergeReport, PostingMergeError } from './reports.js';
export type { ExpiryUpdate, ListOptions, PutInput, WriteOp } from './requests.js';
export type {
  BlockListing,
  ChunkVersion,
  KeywordStats,
  ListedChunk,
  ListedEntry,
  MutationResult,
  ReadCost,
  ReadResult,
  RestoredVersion,
  StoreStatus,
  SupersededMark,
} from './results.js';
export type { ScopeSelector } from './scope-filter.js';
export type { AkashicStoreOptions, GcOptions, HistoryRetention, ScopeTtlRule, StoreOptions } from './store-options.js';
export type { ModelCallKind, ModelCallReceipt, ModelOperationKind, ModelUsageReport, ModelUsageStats, UsageKind, UsageTotals } from './model-usage.js';
export type { ExpiryEvent, GcEvent, StoreErrorEvent, StoreEventBase, StoreEvents, StoreRelocationEvent } from './store-events.js';
