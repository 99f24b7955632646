// Cost receipts of model calls and their totals: what every compaction, recall, relocation and GC grouping reports
// (events, `stats().modelUsage`).

/** What one model call consumed, as its implementation reports it (several reports add up). */
export interface ModelUsageReport {
  /** Prompt (input) tokens, as the server counted them; absent when the server did not say. */
  readonly promptTokens?: number;
  /** Completion (output) tokens, as the server counted them; absent when the server did not say. */
  readonly completionTokens?: number;
  /** Requests the call sent that were retries of an earlier one. */
  readonly retries?: number;
  /** The model name the server answered as (or the one requested). */
  readonly model?: string;
  /**
   * True when the figures are not a server's count: a local model that makes no remote call reports
   * `{ promptTokens: 0, completionTokens: 0, local: true }`.
   */
  readonly local?: boolean;
}

/** The model calls a receipt can name: MemAttention's MemoryModel methods, GC's grouping, and embeddings (`embed`). */
export type ModelCallKind = 'compress' | 'buildMeta' | 'select' | 'jointCompact' | 'colocate' | 'group' | 'scorePassages' | 'embed';

/** The operations that make model calls. */
export type ModelOperationKind = 'compaction' | 'recall' | 'relocation' | 'gc';

/**
 * The kinds usage totals are kept under: the operation that made the call, except that every embedder call (a
 * compaction's or a recall's) is counted under `embedding`.
 */
export type UsageKind = ModelOperationKind | 'embedding';

/** One model call: what it cost and how it went. */
export interface ModelCallReceipt {
  readonly call: ModelCallKind;
  /** The model's name (the server's answer when it gave one). */
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /**
   * Where the token figures come from: `server` (the reply's usage), `estimated` (the tokenizer over the call's
   * inputs and outputs, for a model that reports none) or `local` (a model that makes no remote call: 0 tokens).
   */
  readonly usageSource: 'server' | 'estimated' | 'local';
  /** ms since the epoch. */
  readonly startedAt: number;
  readonly latencyMs: number;
  readonly retries: number;
  /** False when the call failed (its tokens still count: the server charged them). */
  readonly ok: boolean;
}

/** Running totals of model calls. */
export interface UsageTotals {
  readonly calls: number;
  readonly failedCalls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly retries: number;
  /** Sum of the calls' latencies, ms. */
  readonly latencyMs: number;
}

/** Totals of model usage: overall, per usage kind, per call kind, per user. */
export interface ModelUsageStats {
  readonly total: UsageTotals;
  /** Per usage kind: the operation that made the calls, and `embedding` for every embedder call. */
  readonly byOperation: Readonly<Partial<Record<UsageKind, UsageTotals>>>;
  readonly byCall: Readonly<Partial<Record<ModelCallKind, UsageTotals>>>;
  readonly byUser: Readonly<Record<string, UsageTotals>>;
}

