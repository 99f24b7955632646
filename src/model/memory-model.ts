/**
 * The model interface of MemAttention (the Akashic paper, Algorithm 1 and 2): every decision that the paper gives to an
 * LLM goes through one of these methods. Two implementations ship: the embedded default (no network, lexical)
 * and an OpenAI-compatible chat-completions client.
 *
 * Contract for every method: it must not mutate its inputs, must be safe to call concurrently, and must either
 * resolve with a value that satisfies the documented shape or reject with an `AkashicError` of code
 * `AKASHIC_MODEL` (after the implementation's own bounded retries). Callers apply nothing when a call rejects.
 */

import type { AffinityChunk, CoAccessStats } from '../api/affinity-model.js';

/** One raw conversation turn as it sits in the active chunk. */
export interface ModelTurn {
  /** Stable id of the turn (caller-supplied `turnId`, or generated). */
  readonly turnId: string;
  readonly role: string;
  readonly text: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

/**
 * What a model sees of a stored chunk when only metadata may be read (select, colocate, group). GC's `AffinityChunk`
 * and more, so a MemoryModel can group GC's chunks too.
 */
export interface ChunkMetaView extends AffinityChunk {
  /**
   * The embedded model's matching terms of `keywords` (stems, date forms; stop words dropped), in order, when the
   * store kept them with the chunk under the running release's derivation; absent otherwise. A model may use them
   * in place of deriving terms from `keywords`. Whoever sets it must give exactly those terms.
   */
  readonly keywordTerms?: readonly string[];
}

/** A stored chunk with its body, as handed to joint compaction. */
export interface ChunkBodyView extends ChunkMetaView {
  readonly text: string;
}

/** Co-access statistics among a set of chunks: how often each pair was materialized by the same request (GC's `CoAccessStats`). */
export type CoAccessView = CoAccessStats;

export interface CompressResult {
  /** The compacted text of the chunk. */
  readonly text: string;
}

export interface MetaResult {
  /** Representative keywords, most important first, lower-cased, no duplicates. */
  readonly keywords: readonly string[];
}

export interface JointCompactResult {
  /** The refined text of the new chunk. */
  readonly text: string;
  /** Prior chunks to rewrite (out of place) with new text; ids are from the `related` input only. */
  readonly updates: readonly { readonly id: string; readonly text: string }[];
  /** Prior chunks that are stale and must be deleted; ids are from the `related` input only. */
  readonly deletions: readonly string[];
  /**
   * Optional: why each updated or deleted chunk was changed, by id — what matched and why it is stale, in one line
   * (e.g. `employer of Bob (self): "Acme" → "Globex"`). Kept in the compaction's result and in the ended
   * version's history entry. Reasons for ids neither updated nor deleted are ignored.
   */
  readonly reasons?: Readonly<Record<string, string>>;
}

export interface MemoryModel {
  /** Short name for logs and stats, e.g. `embedded` or `openai:gpt-4o-mini`. */
  readonly name: string;
  /**
   * True for a model that makes no remote call (the embedded one): its cost receipts carry 0 tokens and no
   * estimate is made. Default false: tokens come from the usage the model reports (`reportModelUsage`), else from
   * the tokenizer's count of each call's input and output.
   */
  readonly local?: boolean;
  /** COMPRESS: turn one bounded active chunk into memory text. */
  compress(turns: readonly ModelTurn[]): Promise<CompressResult>;
  /** BUILDMETA / BUILDQUERY: keywords for a chunk body or a query. */
  buildMeta(text: string): Promise<MetaResult>;
  /**
   * SELECT: the ids of at most `topP` candidates most relevant to the query, most relevant first.
   * Ids not in `candidates` are never returned.
   */
  select(
    query: { readonly text: string; readonly keywords: readonly string[] },
    candidates: readonly ChunkMetaView[],
    topP: number,
  ): Promise<string[]>;
  /**
   * Optional: the relevance to the query of each passage (a turn of a chunk SELECT picked), one finite score ≥ 0
   * per passage, higher is more relevant, 0 for none. A recall fills its budget with the best passages. A model
   * without it gets BM25 over the passages.
   */
  scorePassages?(
    query: { readonly text: string; readonly keywords: readonly string[] },
    passages: readonly string[],
  ): Promise<number[]>;
  /** JOINT-COMPACT: reconcile a new chunk with its related prior chunks. */
  jointCompact(
    fresh: { readonly text: string; readonly keywords: readonly string[] },
    related: readonly ChunkBodyView[],
  ): Promise<JointCompactResult>;
  /**
   * COLOCATE (Algorithm 2, line 3): of the chunks one request materialized, the subsets worth placing together.
   * A subset is returned only when the model's association for it is at least `tauAssoc` (0..1).
   */
  colocate(
    chunks: readonly ChunkMetaView[],
    coAccess: CoAccessView,
    tauAssoc: number,
  ): Promise<string[][]>;
  /**
   * GROUP (Algorithm 2, line 15): partition the live chunks of one namespace into affinity groups.
   * Every input id appears in exactly one output group.
   */
  group(chunks: readonly ChunkMetaView[], coAccess: CoAccessView): Promise<string[][]>;
}
