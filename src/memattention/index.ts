/**
 * The MemAttention layer (the Akashic paper §4.1–4.3): `AkashicMemory` over an `AkashicStore`, its options and result types.
 */
export { AkashicMemory } from './memory.js';
export type { AppendResult, CompleteRequestInput, MemoryStats, RecallInput, RecallResult, SessionRef, TurnInput } from './memory.js';
export type { CompactionEvent, CompactionTrigger, ErrorEvent, MemoryEvents, OperationEventBase, RecallEvent, RelocationEvent } from './memory-events.js';
export type { WriteBackQueueStats } from './write-back-queue.js';
export type { ActiveTurn } from './active-chunk.js';
export type { CompactionResult } from './compactor.js';
export type { RelocationOutcome } from './colocation.js';
export {
  DEFAULT_CANDIDATE_KEYWORDS,
  DEFAULT_CANDIDATE_PREFILTER,
  DEFAULT_CANDIDATE_WINDOW,
  DEFAULT_CHUNK_GATE_TOKENS,
  DEFAULT_MEMORY_BUDGET_TOKENS,
  DEFAULT_RECALL_TOP_P,
  DEFAULT_RELOCATE_EVERY_RECALLS,
  DEFAULT_TAU_ASSOC,
  DEFAULT_TOP_P,
} from './options.js';
export type { MemoryOptions, MemoryScope, RecallUnit, ResolvedMemoryOptions, WriteBackMode } from './options.js';
export type { RecalledPassage } from './passages.js';
export { CHUNK_SEPARATOR } from './recall.js';
