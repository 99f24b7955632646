/**
 * The events of AkashicMemory (`memory.on(name, listener)`): one per compaction, recall and online relocation, and
 * one per failure of background work. Each carries an id (a ULID), its scope, when it started and how long it
 * took, the blocks it touched, and the cost receipts of the model calls it made. Events are emitted synchronously
 * after the operation settled; nothing is built when nothing listens.
 */
import type { AkashicError } from '../errors.js';
import type { ChunkRef } from '../api/chunk-input.js';
import type { ModelCallReceipt, UsageTotals } from '../api/model-usage.js';

/** What every event carries. */
export interface OperationEventBase {
  /** Unique id of this operation (a ULID). */
  readonly id: string;
  readonly user: string;
  /** ms since the epoch. */
  readonly startedAt: number;
  readonly durationMs: number;
  /** One receipt per model call the operation made, in call order. */
  readonly modelCalls: readonly ModelCallReceipt[];
  /** The receipts summed. */
  readonly usage: UsageTotals;
}

/** Why a compaction ran. */
export type CompactionTrigger = 'gate' | 'end-session' | 'idle' | 'resume';

/** A compaction that committed: turns of a session's active chunk became a memory chunk (with reconciliation). */
export interface CompactionEvent extends OperationEventBase {
  readonly session: string;
  readonly trigger: CompactionTrigger;
  /** The new chunk (null when joint compaction left nothing new). */
  readonly chunk: ChunkRef | null;
  readonly turnIds: readonly string[];
  readonly turnTokens: number;
  /** Tokens of the new chunk's text. */
  readonly tokenCount: number;
  /** Prior chunks reconciled with, and those rewritten or deleted. */
  readonly related: number;
  readonly updated: number;
  readonly deleted: number;
  readonly blocksTouched: number;
  /** Attempts this compaction took (1 unless earlier attempts failed and were retried). */
  readonly attempt: number;
}

/** A recall that returned. */
export interface RecallEvent extends OperationEventBase {
  readonly session: string;
  readonly scope: 'session' | 'user';
  readonly chunks: number;
  readonly candidates: number;
  readonly activeTurns: number;
  /** Tokens of the returned memory text. */
  readonly tokenCount: number;
  readonly blocksTouched: number;
}

/** An online relocation after a recall that ran COLOCATE (it may have moved nothing). */
export interface RelocationEvent extends OperationEventBase {
  readonly groups: number;
  readonly moved: number;
}

/** Background work that failed. A compaction's turns stay in the active chunk; nothing is lost. */
export interface ErrorEvent extends OperationEventBase {
  readonly operation: 'compaction' | 'relocation';
  readonly session?: string;
  readonly error: AkashicError;
  /** The failed attempt's number (compaction retries). */
  readonly attempt: number;
  /** Delay until the next automatic attempt; null: none (the next append, `flush` or `endSession` tries again). */
  readonly retryInMs: number | null;
}

/** Event name → event of AkashicMemory. */
export interface MemoryEvents {
  readonly compaction: CompactionEvent;
  readonly recall: RecallEvent;
  readonly relocation: RelocationEvent;
  readonly error: ErrorEvent;
}
